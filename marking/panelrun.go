package marking

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/examtui/examtui/sessions"
)

// SavePanelRun stores a run of the model panel on a session (result: the panel's result, as
// JSON) under the store's identity, as evidence: `marks show` and the marking console show it,
// and a lock covers it. Refused once the session is locked.
func SavePanelRun(ctx context.Context, st *sessions.Store, sessionID string, result any, at time.Time) (sessions.PanelRun, error) {
	who, err := st.Identity(ctx)
	if err != nil {
		return sessions.PanelRun{}, err
	}
	enc, err := json.Marshal(result)
	if err != nil {
		return sessions.PanelRun{}, fmt.Errorf("panel run of %s: %w", sessionID, err)
	}
	r := sessions.PanelRun{SessionID: sessionID, RunBy: who, At: at.UTC(), Result: enc}
	if err := st.PutPanelRun(ctx, &r); err != nil {
		return sessions.PanelRun{}, err
	}
	return r, nil
}

// panelProposals is what PanelAgreement reads of a stored run: each criterion's proposed level.
type panelProposals struct {
	Criteria []struct {
		Criterion string `json:"criterion"`
		Proposed  string `json:"proposed"`
	} `json:"criteria"`
}

// PanelAgreement compares the model panel with the human markers over an exam's sessions: for
// every criterion of a session that has a final level (agreed, settled or adjudicated) and a
// stored panel run, the latest run's proposed level and the final level, taken as two markers
// ("panel" and "final"). Its α is ordinal, with a bootstrap interval, comparable to the figure
// published model panels report.
func PanelAgreement(ctx context.Context, st *sessions.Store, examID string) (*AgreementFigures, error) {
	marks, err := st.ExamMarks(ctx, examID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range marks {
		if !slices.Contains(ids, m.SessionID) {
			ids = append(ids, m.SessionID)
		}
	}
	var items []item
	for _, sid := range ids {
		runs, err := st.PanelRuns(ctx, sid)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		var pp panelProposals
		if err := json.Unmarshal(runs[len(runs)-1].Result, &pp); err != nil {
			return nil, fmt.Errorf("session %s: panel run %d: %w", sid, runs[len(runs)-1].Seq, err)
		}
		sess, err := st.Get(ctx, sid)
		if err != nil {
			return nil, err
		}
		exam, err := examOf(sess)
		if err != nil {
			return nil, err
		}
		all, fin, err := marksOf(ctx, st, sid)
		if err != nil {
			return nil, err
		}
		for _, cs := range States(exam.Marking, all, fin) {
			c := exam.Marking.Criterion(cs.Criterion)
			if cs.Final == nil || c == nil {
				continue
			}
			for _, p := range pp.Criteria {
				if p.Criterion == cs.Criterion && c.Rank(p.Proposed) >= 0 {
					items = append(items, item{session: sid, criterion: c.ID, by: map[string]int{"panel": c.Rank(p.Proposed), "final": c.Rank(cs.Final.Level)}})
				}
			}
		}
	}
	f := figures(items, []string{"final", "panel"}, seedOf(examID+"\x00panel"))
	return &f, nil
}

package marking

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// cohortProfiles are the levels the first marker gives a strong, a middling and a weak
// candidate (12 marks: distinction; 8: pass; 3: fail): the levels the rule proposes for the
// example's strong, middling and weak scripts (runtimetest.ScriptsByStrength,
// TestScriptsByStrength).
var cohortProfiles = []map[string]string{
	{"options": "evaluation", "clientele": "evaluation", "resources": "evaluation", "communication": "analysis"},
	{"options": "analysis", "clientele": "analysis", "resources": "analysis", "communication": "description"},
	{"options": "description", "clientele": "description", "resources": "description", "communication": "none"},
}

// secondMarker is the second marker's levels for session i: the first's, moved on some
// criteria (one level: within tolerance; two: beyond it), so the cohort has agreements,
// settled differences, boundary crossings and adjudications.
func secondMarker(m *spec.CompiledMarking, i int, first map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range first {
		out[k] = v
	}
	move := func(crit string, by int) {
		c := m.Criterion(crit)
		r := min(max(c.Rank(out[crit])+by, 0), len(c.Levels))
		out[crit] = levelAt(c, r)
	}
	switch {
	case i%7 == 0:
		if first["clientele"] == "description" {
			move("clientele", 2)
		} else {
			move("clientele", -2)
		}
	case i%5 == 1:
		move("options", 1)
	case i%5 == 3:
		move("communication", -1)
	}
	return out
}

// TestCohort marks a cohort of 30 recorded rehearsals (10 each of the strong, middling and weak
// scripts) on PostgreSQL as an institution would:
// two markers (login roles) blind, tolerance one level, a moderator adjudicating the triaged
// queue (boundary cases first) and the sample, then locking; the agreement report (per-pair κ,
// weighted κ, α with intervals) and the Moodle and Canvas files, checked against the
// importers' rules. Each phase's time is logged (docs/marking.md quotes them).
func TestCohort(t *testing.T) {
	ctx := context.Background()
	u := pgtest.NewDB(t)
	owner := openAs(t, u)
	const exam = "hospitality-oral-b2"
	scheme := func(m *spec.CompiledMarking) {
		m.Markers = 2
		m.Moderation = &spec.CompiledModeration{Tolerance: 1, Settle: spec.SettleLower, SamplePercent: 10, SampleMin: 3}
	}
	timed := func(what string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		t.Logf("%-36s %v", what, time.Since(start).Round(time.Millisecond))
	}
	var ids []string
	timed("record 30 rehearsals", func() {
		for i := range 30 {
			name := runtimetest.ScriptsByStrength[i%3]
			ids = append(ids, recordScript(t, owner, name, fmt.Sprintf("Candidate %02d", i), time.Duration(i)*time.Minute, scheme))
		}
	})
	var roster []sessions.Candidate
	for i := range ids {
		roster = append(roster, sessions.Candidate{CandidateID: fmt.Sprintf("c%02d", i), Name: fmt.Sprintf("Candidate %02d", i),
			Email: fmt.Sprintf("c%02d@example.edu", i), SISUserID: fmt.Sprintf("S%03d", i), SISLoginID: fmt.Sprintf("c%02d", i), LMSUserID: fmt.Sprint(1000 + i)})
	}
	if err := owner.PutCandidates(ctx, roster); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if err := owner.AttachCandidate(ctx, id, roster[i].CandidateID); err != nil {
			t.Fatal(err)
		}
	}
	addRoster(t, owner, exam, sessions.RoleMarker, "ana", "ben")
	addRoster(t, owner, exam, sessions.RoleModerator, "mia")
	ana, ben, mia := openAs(t, pgtest.LoginRole(t, u, "ana")), openAs(t, pgtest.LoginRole(t, u, "ben")), openAs(t, pgtest.LoginRole(t, u, "mia"))
	s0, err := Load(ctx, owner, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	m := s0.Exam.Marking
	at := time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC)
	give := func(st *sessions.Store, id string, levels map[string]string) {
		for _, c := range m.Criteria {
			if _, err := SetMark(ctx, st, Entry{SessionID: id, Criterion: c.ID, Level: levels[c.ID], Justification: "as heard"}, at); err != nil {
				t.Fatal(err)
			}
			at = at.Add(time.Second)
		}
	}
	timed("first marker: 120 marks", func() {
		for i, id := range ids {
			give(ana, id, cohortProfiles[i%3])
		}
	})
	timed("second marker, blind: 120 marks", func() {
		for i, id := range ids {
			v, err := Show(ctx, ben, id, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range v.Criteria {
				if len(c.Others) != 0 || c.Hidden != 1 {
					t.Fatalf("ben sees the first marker's %s in %s: %+v", c.Criterion, id, c)
				}
			}
			give(ben, id, secondMarker(m, i, cohortProfiles[i%3]))
		}
	})
	var q []QueueItem
	timed("triaged queue", func() {
		if q, err = Queue(ctx, mia, exam, ""); err != nil {
			t.Fatal(err)
		}
	})
	reasons := map[string]int{}
	sampled, boundaryFirst := 0, true
	seenPlain := false
	for _, it := range q {
		key := it.Reason.String()
		if it.Boundary {
			key += " (boundary)"
			boundaryFirst = boundaryFirst && !seenPlain
		} else if it.Reason == QueueDisagreement {
			seenPlain = true
		}
		reasons[key]++
		if it.Sampled {
			sampled++
		}
	}
	t.Logf("queue: %v, %d sampled", reasons, sampled)
	if len(q) != 30 || reasons["disagreement"] == 0 || reasons["disagreement (boundary)"] == 0 || reasons["ready to lock"] == 0 || !boundaryFirst || sampled != 3 {
		t.Errorf("queue %v, %d sampled, boundary cases first: %v", reasons, sampled, boundaryFirst)
	}
	var ag *Agreement
	timed("agreement with bootstrap intervals", func() {
		if ag, err = ExamAgreement(ctx, owner, exam); err != nil {
			t.Fatal(err)
		}
	})
	p := ag.Pairs[0]
	if len(ag.Pairs) != 1 || p.Items != 120 || p.Kappa == nil || p.KappaCI == nil || p.WeightedKappa == nil || p.WeightedKappaCI == nil ||
		ag.Overall.Alpha == nil || ag.Overall.AlphaCI == nil || p.Sessions != 30 {
		t.Fatalf("agreement %+v, pair %+v", ag.Overall, p)
	}
	t.Logf("agreement: exact %.3f, κ %.3f [%.2f, %.2f], weighted κ %.3f [%.2f, %.2f], α %.3f [%.2f, %.2f], same band %.2f",
		*p.Exact, *p.Kappa, p.KappaCI.Low, p.KappaCI.High, *p.WeightedKappa, p.WeightedKappaCI.Low, p.WeightedKappaCI.High,
		*ag.Overall.Alpha, ag.Overall.AlphaCI.Low, ag.Overall.AlphaCI.High, *p.SameBand)
	timed("store 30 model panel runs", func() {
		for i, id := range ids {
			// The panel proposes the first marker's levels, one level lower on options every
			// fourth session: a panel that mostly agrees with the humans.
			prof := cohortProfiles[i%3]
			var crit []map[string]string
			for _, c := range m.Criteria {
				lv := prof[c.ID]
				if c.ID == "options" && i%4 == 0 {
					lv = levelAt(&c, max(c.Rank(lv)-1, 0))
				}
				crit = append(crit, map[string]string{"criterion": c.ID, "proposed": lv})
			}
			if _, err := SavePanelRun(ctx, owner, id, map[string]any{"sessionId": id, "criteria": crit}, at); err != nil {
				t.Fatal(err)
			}
		}
	})
	timed("adjudicate and lock 30 sessions", func() {
		for _, it := range q {
			for _, c := range it.Criteria {
				if it.Reason != QueueDisagreement {
					break
				}
				if _, err := Adjudicate(ctx, mia, Entry{SessionID: it.SessionID, Criterion: c, Level: "analysis", Justification: "moderated"}, at); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Lock(ctx, mia, it.SessionID, "", at); err != nil {
				t.Fatal(err)
			}
		}
	})
	var pf *AgreementFigures
	timed("panel-vs-human agreement", func() {
		if pf, err = PanelAgreement(ctx, owner, exam); err != nil {
			t.Fatal(err)
		}
	})
	if pf.Items != 120 || pf.Alpha == nil || pf.AlphaCI == nil || *pf.Alpha >= 1 || *pf.Alpha < 0.5 {
		t.Errorf("panel-vs-human figures %+v", pf)
	} else {
		t.Logf("panel vs final: %d items, exact %.3f, α %.3f [%.2f, %.2f]", pf.Items, *pf.Exact, *pf.Alpha, pf.AlphaCI.Low, pf.AlphaCI.High)
	}
	for _, f := range []struct {
		format ExportFormat
		check  func([]byte) error
	}{
		{ExportMoodle, func(b []byte) error { return moodleAccepts(b, "ID number") }},
		{ExportCanvas, canvasAccepts},
	} {
		var b bytes.Buffer
		timed(fmt.Sprintf("verify and export 30 rows (%v)", f.format), func() {
			rows, scheme, err := Gradebook(ctx, owner, exam)
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteGradebook(&b, f.format, rows, scheme, ""); err != nil {
				t.Fatal(err)
			}
		})
		if err := f.check(b.Bytes()); err != nil {
			t.Errorf("%v file breaks %v", f.format, err)
		}
		if n := strings.Count(b.String(), "\n"); n < 31 {
			t.Errorf("%v file has %d lines", f.format, n)
		}
	}
}

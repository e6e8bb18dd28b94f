package marking

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// Session is a finished session with the exam it ran and its events: what marking reads.
type Session struct {
	*sessions.Session
	Exam   *spec.Exam
	Events []runtime.Event
}

// Load reads a session, its exam (as it was when the session ran) and its events; it refuses
// an exam without a marking scheme.
func Load(ctx context.Context, st *sessions.Store, id string) (*Session, error) {
	sess, events, err := st.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	exam, err := examOf(sess)
	if err != nil {
		return nil, err
	}
	return &Session{Session: sess, Exam: exam, Events: events}, nil
}

func examOf(sess *sessions.Session) (*spec.Exam, error) {
	var exam spec.Exam
	if err := json.Unmarshal(sess.ExamJSON, &exam); err != nil {
		return nil, fmt.Errorf("session %s: decode its exam: %w", sess.ID, err)
	}
	if exam.Marking == nil {
		return nil, fmt.Errorf("session %s (exam %s): %w", sess.ID, exam.ID, ErrNoScheme)
	}
	return &exam, nil
}

// Entry is one marker's level (or the adjudicated one) as a step of moderation asks for it.
type Entry struct {
	SessionID     string
	Criterion     string
	Level         string
	Marker        string
	Justification string
}

// mark checks an entry against the session's scheme and makes it a store row.
func (s *Session) mark(e Entry, at time.Time) (sessions.Mark, error) {
	if s.EndedAt.IsZero() {
		return sessions.Mark{}, fmt.Errorf("session %s: %w", s.ID, ErrSessionRunning)
	}
	c := s.Exam.Marking.Criterion(e.Criterion)
	if c == nil {
		return sessions.Mark{}, fmt.Errorf("%w %q (the scheme has %s)", ErrUnknownCrit, e.Criterion, strings.Join(criterionIDs(s.Exam.Marking), ", "))
	}
	if c.Rank(e.Level) < 0 {
		return sessions.Mark{}, fmt.Errorf("%w %q for %s (levels: %s)", ErrUnknownLevel, e.Level, c.ID, strings.Join(c.LevelNames(), ", "))
	}
	if strings.TrimSpace(e.Justification) == "" {
		return sessions.Mark{}, fmt.Errorf("%s: %w", c.ID, ErrNoJustify)
	}
	return sessions.Mark{SessionID: s.ID, Criterion: c.ID, Marker: e.Marker, Level: e.Level, Marks: c.Marks(e.Level),
		Justification: e.Justification, At: at.UTC()}, nil
}

func criterionIDs(m *spec.CompiledMarking) []string {
	var out []string
	for _, c := range m.Criteria {
		out = append(out, c.ID)
	}
	return out
}

// SetMark records the store's user's level for a criterion (replacing their earlier one); they
// must be a marker of the exam when it has a roster. e.Marker, when set, must be that user.
func SetMark(ctx context.Context, st *sessions.Store, e Entry, at time.Time) (sessions.Mark, error) {
	return saveEntry(ctx, st, e, at, sessions.RoleMarker, st.SetMark)
}

// Adjudicate records the final level of a criterion, whatever the markers gave: a moderator's
// step (when the exam has a roster), never one who marked the session.
func Adjudicate(ctx context.Context, st *sessions.Store, e Entry, at time.Time) (sessions.Mark, error) {
	return saveEntry(ctx, st, e, at, sessions.RoleModerator, st.SetFinalMark)
}

// saveEntry checks an entry against the session's scheme and the actor's role and saves it
// with save (a marker's mark or the final one).
func saveEntry(ctx context.Context, st *sessions.Store, e Entry, at time.Time, role sessions.MarkingRole,
	save func(context.Context, sessions.Mark) error) (sessions.Mark, error) {
	s, err := Load(ctx, st, e.SessionID)
	if err != nil {
		return sessions.Mark{}, err
	}
	a, err := WhoAmI(ctx, st, s.Exam.ID, e.Marker)
	if err != nil {
		return sessions.Mark{}, err
	}
	if err := a.need(role, s.Exam.ID); err != nil {
		return sessions.Mark{}, err
	}
	if role == sessions.RoleModerator {
		marks, err := st.Marks(ctx, s.ID)
		if err != nil {
			return sessions.Mark{}, err
		}
		if markedBy(marks, a.Name) {
			return sessions.Mark{}, fmt.Errorf("adjudicate %s: %w (%s marked it)", s.ID, ErrOwnSession, a.Name)
		}
	}
	e.Marker = a.Name
	m, err := s.mark(e, at)
	if err != nil {
		return sessions.Mark{}, err
	}
	return m, save(ctx, m)
}

// CriterionState is where one criterion of a session stands: every marker's mark, the final
// mark if there is one, and its status.
type CriterionState struct {
	Criterion string          `json:"criterion"`
	Title     string          `json:"title"`
	Status    Status          `json:"status"`
	Marks     []sessions.Mark `json:"marks"`
	// Final is the adjudicated mark, or the agreed or settled level as a mark with no marker.
	Final *sessions.Mark `json:"final,omitempty"`
	// Settled is the rule that settled a within-tolerance difference (lower, higher, average,
	// first); Boundary says a within-tolerance difference went to adjudication because the
	// markers' totals cross a grade boundary.
	Settled  string `json:"settled,omitempty"`
	Boundary bool   `json:"boundary,omitempty"`
}

// States works out each criterion's status from the markers' and the final marks: a final
// mark is adjudicated; fewer markers than the scheme needs is unmarked or awaiting a marker;
// one level is agreed; levels within the tolerance settle by the scheme's rule unless the
// markers' totals cross a grade boundary; anything else is disagreed.
func States(m *spec.CompiledMarking, marks, finals []sessions.Mark) []CriterionState {
	var out []CriterionState
	boundary := m.Tolerance() > 0 && crossesBoundary(m, marks)
	for i := range m.Criteria {
		c := &m.Criteria[i]
		st := CriterionState{Criterion: c.ID, Title: c.Title, Marks: []sessions.Mark{}}
		for _, mk := range marks {
			if mk.Criterion == c.ID {
				st.Marks = append(st.Marks, mk)
			}
		}
		byTime := slices.Clone(st.Marks)
		slices.SortStableFunc(byTime, func(a, b sessions.Mark) int { return a.At.Compare(b.At) })
		if i := slices.IndexFunc(finals, func(f sessions.Mark) bool { return f.Criterion == c.ID }); i >= 0 {
			f := finals[i]
			st.Status, st.Final = StatusAdjudicated, &f
		} else if len(st.Marks) == 0 {
			st.Status = StatusUnmarked
		} else if len(st.Marks) < m.MarkersNeeded() {
			st.Status = StatusAwaiting
		} else if agreed(st.Marks) {
			st.Status = StatusAgreed
			st.Final = &sessions.Mark{SessionID: st.Marks[0].SessionID, Criterion: c.ID, Level: st.Marks[0].Level, Marks: st.Marks[0].Marks}
		} else if d := spread(c, st.Marks); d <= m.Tolerance() && !boundary {
			lvl := settleLevel(c, m.Moderation.Settle, byTime)
			st.Status, st.Settled = StatusSettled, m.Moderation.Settle
			st.Final = &sessions.Mark{SessionID: st.Marks[0].SessionID, Criterion: c.ID, Level: lvl, Marks: c.Marks(lvl)}
		} else {
			st.Status, st.Boundary = StatusDisagreed, d <= m.Tolerance() && boundary
		}
		out = append(out, st)
	}
	return out
}

func agreed(marks []sessions.Mark) bool {
	for _, m := range marks[1:] {
		if m.Level != marks[0].Level {
			return false
		}
	}
	return true
}

// View is what one marker may see of a session's marking: blind marking shows a marker only
// their own levels of a criterion until they have given one themselves; then the others'
// levels and the final mark appear.
type View struct {
	SessionID string          `json:"sessionId"`
	Marker    string          `json:"marker"`
	Locked    bool            `json:"locked"`
	Criteria  []CriterionView `json:"criteria"`
}

// CriterionView is one criterion as a marker sees it.
type CriterionView struct {
	Criterion string         `json:"criterion"`
	Title     string         `json:"title"`
	Proposed  string         `json:"proposed"`
	Own       *sessions.Mark `json:"own,omitempty"`
	// Others are the other markers' marks, shown once the marker has marked the criterion;
	// Hidden counts them until then.
	Others []sessions.Mark `json:"others"`
	Hidden int             `json:"hidden"`
	Status Status          `json:"status,omitempty"`
	Final  *sessions.Mark  `json:"final,omitempty"`
	// Settled and Boundary are the criterion's CriterionState fields, once visible.
	Settled  string `json:"settled,omitempty"`
	Boundary bool   `json:"boundary,omitempty"`
}

// Outcome says, in a few words, where the criterion went once this marker has marked it (the
// tolerance's verdict: agreed, settled by the rule, to the moderator beyond the tolerance or
// across a grade boundary), without naming any other marker's level: "" before they have.
func (cv CriterionView) Outcome() string {
	if cv.Own == nil {
		return ""
	}
	switch cv.Status {
	case StatusAgreed:
		return "agreed"
	case StatusSettled:
		return "settled (" + cv.Settled + ")"
	case StatusDisagreed:
		if cv.Boundary {
			return "to moderator (boundary)"
		}
		return "to moderator"
	case StatusAdjudicated:
		return "adjudicated"
	case StatusAwaiting:
		return "awaiting a marker"
	}
	return ""
}

// Show is a session's marking as the store's user may see it (blind until they have marked);
// claimed, when set, must be that user.
func Show(ctx context.Context, st *sessions.Store, id, claimed string) (*View, error) {
	s, err := Load(ctx, st, id)
	if err != nil {
		return nil, err
	}
	a, err := WhoAmI(ctx, st, s.Exam.ID, claimed)
	if err != nil {
		return nil, err
	}
	marker := a.Name
	p, err := Propose(s.Exam, s.Events)
	if err != nil {
		return nil, err
	}
	marks, finals, err := marksOf(ctx, st, id)
	if err != nil {
		return nil, err
	}
	_, locked, err := st.MarkLock(ctx, id)
	if err != nil {
		return nil, err
	}
	counts, err := st.MarkCounts(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &View{SessionID: id, Marker: marker, Locked: locked}
	for i, cs := range States(s.Exam.Marking, marks, finals) {
		cv := CriterionView{Criterion: cs.Criterion, Title: cs.Title, Proposed: p.Criteria[i].Level, Others: []sessions.Mark{}}
		var others []sessions.Mark
		for _, m := range cs.Marks {
			if m.Marker == marker {
				own := m
				cv.Own = &own
			} else {
				others = append(others, m)
			}
		}
		if cv.Own != nil || locked {
			cv.Others, cv.Status, cv.Final = append(cv.Others, others...), cs.Status, cs.Final
			cv.Settled, cv.Boundary = cs.Settled, cs.Boundary
		} else {
			// The store may not even return the others' rows (PostgreSQL's row-level
			// security): their number comes from a count that reveals nothing else.
			cv.Hidden = counts[cs.Criterion]
		}
		v.Criteria = append(v.Criteria, cv)
	}
	return v, nil
}

// QueueItem is one session waiting for a step of marking.
type QueueItem struct {
	SessionID string      `json:"sessionId"`
	Candidate string      `json:"candidate"`
	EndedAt   time.Time   `json:"endedAt"`
	Reason    QueueReason `json:"reason"`
	// Criteria are the criteria behind the reason (unmarked or disagreed ones).
	Criteria []string `json:"criteria,omitempty"`
	// Boundary: a disagreement within the tolerance whose markers' totals cross a grade
	// boundary; these come first among disagreements.
	Boundary bool `json:"boundary,omitempty"`
	// Sampled: the session is in the exam's moderation sample.
	Sampled bool `json:"sampled,omitempty"`
}

// Queue lists an exam's finished, unlocked sessions (not candidate scripts', unless
// IncludeRehearsals) that wait for marking: unmarked first
// (by marker, when one is named: criteria they have not marked and nobody adjudicated), then disagreements waiting
// for adjudication, then sessions ready to lock; oldest first within each.
func Queue(ctx context.Context, st *sessions.Store, examID, marker string, opts ...ListOption) ([]QueueItem, error) {
	cfg := listOptions(opts)
	list, err := st.List(ctx)
	if err != nil {
		return nil, err
	}
	locked, err := st.LockedSessions(ctx, examID)
	if err != nil {
		return nil, err
	}
	var out []QueueItem
	var finished []string
	for _, ls := range list {
		if !cfg.skip(ls, examID) {
			finished = append(finished, ls.ID)
		}
	}
	for _, ls := range list {
		if cfg.skip(ls, examID) || locked[ls.ID] {
			continue
		}
		sess, err := st.Get(ctx, ls.ID)
		if err != nil {
			return nil, err
		}
		exam, err := examOf(sess)
		if err != nil {
			continue // an exam version without a scheme cannot be marked
		}
		marks, finals, err := marksOf(ctx, st, ls.ID)
		if err != nil {
			return nil, err
		}
		item := QueueItem{SessionID: ls.ID, Candidate: ls.Candidate, EndedAt: ls.EndedAt,
			Sampled: InSample(exam.Marking, examID, finished, ls.ID)}
		var unmarked, disagreed []string
		for _, cs := range States(exam.Marking, marks, finals) {
			mine := slices.ContainsFunc(cs.Marks, func(m sessions.Mark) bool { return m.Marker == marker })
			switch {
			case marker != "" && !mine && cs.Status != StatusAdjudicated,
				marker == "" && (cs.Status == StatusUnmarked || cs.Status == StatusAwaiting):
				unmarked = append(unmarked, cs.Criterion)
			case cs.Status == StatusDisagreed:
				disagreed = append(disagreed, cs.Criterion)
				item.Boundary = item.Boundary || cs.Boundary
			}
		}
		switch {
		case len(unmarked) > 0:
			item.Reason, item.Criteria = QueueUnmarked, unmarked
		case len(disagreed) > 0:
			item.Reason, item.Criteria = QueueDisagreement, disagreed
		default:
			item.Reason = QueueReadyToLock
		}
		out = append(out, item)
	}
	slices.SortStableFunc(out, func(a, b QueueItem) int {
		if a.Reason != b.Reason {
			return int(a.Reason - b.Reason)
		}
		if a.Boundary != b.Boundary {
			if a.Boundary {
				return -1
			}
			return 1
		}
		if c := a.EndedAt.Compare(b.EndedAt); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	return out, nil
}

// Lock finalises a session's marking as the store's user (claimed, when set, must be them):
// refused while a criterion has no final level or fewer markers than the scheme needs, and for
// anyone but a moderator (or the marker, when one marker is needed); records the locker, the
// time and the digest over what decides the result (Manifest).
func Lock(ctx context.Context, st *sessions.Store, id, claimed string, at time.Time) (sessions.MarkLock, error) {
	s, err := Load(ctx, st, id)
	if err != nil {
		return sessions.MarkLock{}, err
	}
	if s.EndedAt.IsZero() {
		return sessions.MarkLock{}, fmt.Errorf("session %s: %w", id, ErrSessionRunning)
	}
	a, err := WhoAmI(ctx, st, s.Exam.ID, claimed)
	if err != nil {
		return sessions.MarkLock{}, err
	}
	marks, finals, err := marksOf(ctx, st, id)
	if err != nil {
		return sessions.MarkLock{}, err
	}
	if err := checkLock(st, s, a, marks); err != nil {
		return sessions.MarkLock{}, err
	}
	var open []string
	for _, cs := range States(s.Exam.Marking, marks, finals) {
		if !cs.Status.Final() {
			open = append(open, cs.Criterion+" ("+cs.Status.String()+")")
		}
	}
	if len(open) > 0 {
		return sessions.MarkLock{}, fmt.Errorf("lock %s: %w: %s", id, ErrNoFinalLevel, strings.Join(open, ", "))
	}
	subject, err := subjectOf(ctx, st, s.Session)
	if err != nil {
		return sessions.MarkLock{}, err
	}
	manifest, err := Manifest(subject, s.Events, marks, finals)
	if err != nil {
		return sessions.MarkLock{}, err
	}
	l := sessions.MarkLock{SessionID: id, Marker: a.Name, At: at.UTC(), Digest: Digest(manifest), Manifest: manifest}
	return l, st.LockMarks(ctx, l)
}

// Verification is the outcome of checking a session against its lock.
type Verification struct {
	SessionID string            `json:"sessionId"`
	Lock      sessions.MarkLock `json:"lock"`
	Digest    string            `json:"digest"` // over the session as it is now
	// Changes name each event or mark that changed, was added or went missing since the lock.
	Changes []string `json:"changes"`
}

// OK reports whether events and marks are as locked.
func (v *Verification) OK() bool { return len(v.Changes) == 0 && v.Digest == v.Lock.Digest }

// Verify recomputes a locked session's manifest and compares it with the lock's. A lock whose
// own manifest no longer hashes to its digest has been edited too, and says so.
func Verify(ctx context.Context, st *sessions.Store, id string) (*Verification, error) {
	l, locked, err := st.MarkLock(ctx, id)
	if err != nil {
		return nil, err
	}
	if !locked {
		return nil, fmt.Errorf("session %s: %w", id, ErrNotLocked)
	}
	sess, events, err := st.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	marks, finals, err := marksOf(ctx, st, id)
	if err != nil {
		return nil, err
	}
	var sub *Subject
	if strings.HasPrefix(l.Manifest, manifestV2+"\n") {
		if sub, err = subjectOf(ctx, st, sess); err != nil {
			return nil, err
		}
	}
	manifest, err := Manifest(sub, events, marks, finals)
	if err != nil {
		return nil, err
	}
	v := &Verification{SessionID: id, Lock: l, Digest: Digest(manifest), Changes: []string{}}
	if Digest(l.Manifest) != l.Digest {
		v.Changes = append(v.Changes, "the lock's record itself was edited (its manifest no longer matches its digest)")
	}
	v.Changes = append(v.Changes, diffManifests(l.Manifest, manifest)...)
	return v, nil
}

// marksOf reads a session's marks: every marker's, and the final ones.
func marksOf(ctx context.Context, st *sessions.Store, id string) (marks, finals []sessions.Mark, err error) {
	if marks, err = st.Marks(ctx, id); err != nil {
		return nil, nil, err
	}
	if finals, err = st.FinalMarks(ctx, id); err != nil {
		return nil, nil, err
	}
	return marks, finals, nil
}

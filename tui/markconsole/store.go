package markconsole

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// ErrNoPanel is the panel key pressed where no panel is configured.
var ErrNoPanel = errors.New("no model panel is configured (set EXAMTUI_MARK_BASE_URL or list panel members in the config file)")

// PanelFunc runs the model panel on one session's input.
type PanelFunc func(ctx context.Context, in panel.Input) (*panel.Result, error)

// StoreBackend is the console's backend over the session store: sheets from the stored
// events (the rule's proposal is computed on load), marks saved as the marker's.
type StoreBackend struct {
	store  *sessions.Store
	marker string
	examID string // the queue's exam; empty for one session
	panel  PanelFunc
	player string
}

// NewStoreBackend is the backend of marker over store. examID names the exam whose queue the
// console works through ("" for one session); run may be nil (no panel); player is the
// command that plays audio (sox's play; "" when there is none).
func NewStoreBackend(store *sessions.Store, marker, examID string, run PanelFunc, player string) (*StoreBackend, error) {
	if store == nil || marker == "" {
		return nil, fmt.Errorf("%w: a store and a marker name are needed", ErrInvalidOption)
	}
	return &StoreBackend{store: store, marker: marker, examID: examID, panel: run, player: player}, nil
}

// Load builds a session's sheet with this marker's marks only (marking is blind).
func (b *StoreBackend) Load(ctx context.Context, id string) (*Sheet, error) {
	id, err := b.store.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	sess, err := b.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	exam, err := sess.Exam()
	if err != nil {
		return nil, err
	}
	events, err := b.store.LoadEvents(ctx, id)
	if err != nil {
		return nil, err
	}
	s := &Sheet{SessionID: id, ExamID: sess.ExamID, Candidate: sess.Candidate, StartedAt: sess.StartedAt,
		Marking: exam.Marking, Marker: b.marker, Marks: map[string]Entry{}, RecordingStart: sess.StartedAt}
	for _, ev := range events {
		if ev.Event != runtime.EventTranscriptSegment {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			continue
		}
		ts := p.(*runtime.TranscriptSegmentPayload)
		if ts.IsFinal {
			s.Lines = append(s.Lines, Line{SegmentID: ts.SegmentID, Seq: ev.Seq, NodeID: ts.NodeID, Speaker: ts.Speaker.String(),
				Text: ts.Text, At: time.UnixMilli(ts.TimestampMs)})
		}
	}
	if exam.Marking == nil {
		return s, nil
	}
	if s.Proposal, err = marking.Propose(exam, events); err != nil {
		return nil, err
	}
	marks, err := b.store.Marks(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, mk := range marks {
		if mk.Marker == b.marker {
			s.Marks[mk.Criterion] = Entry{Level: mk.Level, Justification: mk.Justification}
		}
	}
	if _, s.Locked, err = b.store.MarkLock(ctx, id); err != nil {
		return nil, err
	}
	for _, r := range sess.Recordings {
		if filepath.Base(r) == "candidate.wav" {
			if _, err := os.Stat(r); err == nil {
				s.Recording = r
			}
		}
	}
	if b.examID != "" {
		q, err := b.queue(ctx)
		if err != nil {
			return nil, err
		}
		s.Total = len(q.all)
		s.Position = slices.Index(q.all, id) + 1
	}
	return s, nil
}

// Save records the marker's level (with the marks it earns) on a criterion.
func (b *StoreBackend) Save(ctx context.Context, id, criterion string, e Entry) error {
	sess, err := b.store.Get(ctx, id)
	if err != nil {
		return err
	}
	exam, err := sess.Exam()
	if err != nil {
		return err
	}
	if exam.Marking == nil {
		return marking.ErrNoScheme
	}
	c := exam.Marking.Criterion(criterion)
	if c == nil || c.Rank(e.Level) < 0 {
		return fmt.Errorf("%s: no level %q", criterion, e.Level)
	}
	return b.store.SetMark(ctx, sessions.Mark{SessionID: id, Criterion: criterion, Marker: b.marker, Level: e.Level,
		Marks: c.Marks(e.Level), Justification: e.Justification, At: time.Now()})
}

// queueState is the exam's finished sessions in the order they started, and those this marker
// still has to mark (not locked, some criterion without this marker's mark).
type queueState struct {
	all     []string
	pending map[string]bool
}

func (b *StoreBackend) queue(ctx context.Context) (queueState, error) {
	q := queueState{pending: map[string]bool{}}
	list, err := b.store.List(ctx)
	if err != nil {
		return q, err
	}
	locked, err := b.store.LockedSessions(ctx, b.examID)
	if err != nil {
		return q, err
	}
	slices.SortStableFunc(list, func(a, c *sessions.Session) int { return a.StartedAt.Compare(c.StartedAt) })
	for _, s := range list {
		if s.ExamID != b.examID || s.EndedAt.IsZero() {
			continue
		}
		full, err := b.store.Get(ctx, s.ID)
		if err != nil {
			return q, err
		}
		exam, err := full.Exam()
		if err != nil || exam.Marking == nil {
			continue
		}
		q.all = append(q.all, s.ID)
		if locked[s.ID] {
			continue
		}
		marks, err := b.store.Marks(ctx, s.ID)
		if err != nil {
			return q, err
		}
		mine := map[string]bool{}
		for _, mk := range marks {
			if mk.Marker == b.marker {
				mine[mk.Criterion] = true
			}
		}
		for _, c := range exam.Marking.Criteria {
			if !mine[c.ID] {
				q.pending[s.ID] = true
				break
			}
		}
	}
	return q, nil
}

// Next is the first session after the given one (in start order, wrapping round) that this
// marker still has to mark; "" when none is left.
func (b *StoreBackend) Next(ctx context.Context, after string) (string, error) {
	if b.examID == "" {
		return "", nil
	}
	q, err := b.queue(ctx)
	if err != nil {
		return "", err
	}
	start := slices.Index(q.all, after) + 1
	for i := range q.all {
		id := q.all[(start+i)%len(q.all)]
		if q.pending[id] && id != after {
			return id, nil
		}
	}
	if q.pending[after] {
		return after, nil
	}
	return "", nil
}

// Panel runs the model panel on the sheet's transcript and criteria.
func (b *StoreBackend) Panel(ctx context.Context, s *Sheet) (*panel.Result, error) {
	if b.panel == nil {
		return nil, ErrNoPanel
	}
	in := panel.Input{SessionID: s.SessionID, Criteria: panel.CriteriaFrom(s.Marking)}
	for _, l := range s.Lines {
		in.Segments = append(in.Segments, panel.Segment{ID: l.SegmentID, NodeID: l.NodeID, Speaker: l.Speaker, Text: l.Text})
	}
	return b.panel(ctx, in)
}

// Play plays the recording from offset with sox's play; its output goes nowhere (the console
// owns the terminal).
func (b *StoreBackend) Play(ctx context.Context, path string, offset, length time.Duration) error {
	if b.player == "" {
		return errors.New("no audio player: install sox (its play command) to listen")
	}
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
	cmd := exec.CommandContext(ctx, b.player, "-q", path, "trim", sec(offset), sec(length))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("play %s at %s: %w: %s", filepath.Base(path), clock(offset), err, oneLine(string(out)))
	}
	return nil
}

func oneLine(s string) string {
	if len(s) > 200 {
		s = s[:200]
	}
	out := []rune{}
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}

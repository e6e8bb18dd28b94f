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
	"strings"
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
	// decrypt gives a playable copy of a recording encrypted at rest (nil: none can be played).
	decrypt DecryptFunc
}

// DecryptFunc writes the plaintext of an encrypted recording to a private file and returns its
// path and how to remove it.
type DecryptFunc func(path string) (plain string, remove func(), err error)

// BackendOption configures a StoreBackend.
type BackendOption func(*StoreBackend)

// WithDecrypt lets the console play recordings encrypted at rest (docs/records.md).
func WithDecrypt(f DecryptFunc) BackendOption { return func(b *StoreBackend) { b.decrypt = f } }

// NewStoreBackend is the backend of marker over store. examID names the exam whose queue the
// console works through ("" for one session); run may be nil (no panel); player is the
// command that plays audio (sox's play; "" when there is none).
func NewStoreBackend(store *sessions.Store, marker, examID string, run PanelFunc, player string, opts ...BackendOption) (*StoreBackend, error) {
	if store == nil || marker == "" {
		return nil, fmt.Errorf("%w: a store and a marker name are needed", ErrInvalidOption)
	}
	b := &StoreBackend{store: store, marker: marker, examID: examID, panel: run, player: player}
	for _, o := range opts {
		o(b)
	}
	return b, nil
}

// Load builds a session's sheet with this marker's marks only (marking is blind): the
// session through marking.Load, the rule's proposal through marking.Propose.
func (b *StoreBackend) Load(ctx context.Context, id string) (*Sheet, error) {
	id, err := b.store.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	// A marker opening a session reads its records: the access log says who, first.
	if err := b.store.RecordAccess(ctx, sessions.AccessEntry{Action: sessions.AccessMarking, SessionID: id}); err != nil {
		return nil, fmt.Errorf("record the access: %w", err)
	}
	sess, err := marking.Load(ctx, b.store, id)
	if err != nil {
		return nil, err
	}
	s := &Sheet{SessionID: id, ExamID: sess.ExamID, Candidate: sess.Candidate, StartedAt: sess.StartedAt,
		Marking: sess.Exam.Marking, Evidence: sess.Exam.Evidence, Marker: b.marker, Marks: map[string]Entry{}, RecordingStart: sess.StartedAt}
	for ev, ts := range runtime.FinalSegments(sess.Events) {
		s.Lines = append(s.Lines, Line{SegmentID: ts.SegmentID, Seq: ev.Seq, NodeID: ts.NodeID, Speaker: ts.Speaker.String(),
			Text: ts.Text, At: time.UnixMilli(ts.TimestampMs)})
	}
	if s.Proposal, err = marking.Propose(sess.Exam, sess.Events); err != nil {
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
	if s.Panel, err = panel.Latest(ctx, b.store, id); err != nil {
		return nil, err
	}
	if s.Outcomes, err = b.outcomes(ctx, id); err != nil {
		return nil, err
	}
	// The first take's candidate track: its timeline starts with the session. (A resumed
	// session's later takes start at the resume, which the sheet does not know.)
	for _, r := range sess.Recordings {
		if b := strings.TrimSuffix(filepath.Base(r), sessions.EncryptedSuffix); b == "candidate.wav" {
			if _, err := os.Stat(r); err == nil {
				s.Recording = r
			}
			break
		}
	}
	if b.examID != "" {
		q, err := b.queue(ctx)
		if err != nil {
			return nil, err
		}
		s.Total = len(q)
		if i := slices.Index(q, id); i >= 0 {
			s.Position = i + 1
		}
	}
	return s, nil
}

// Save records the marker's level on a criterion through marking.SetMark, which checks it
// against the scheme and requires the justification, and returns the criterion's outcome.
func (b *StoreBackend) Save(ctx context.Context, id, criterion string, e Entry) (string, error) {
	if _, err := marking.SetMark(ctx, b.store, marking.Entry{SessionID: id, Criterion: criterion, Level: e.Level,
		Marker: b.marker, Justification: e.Justification}, time.Now()); err != nil {
		return "", err
	}
	out, err := b.outcomes(ctx, id)
	return out[criterion], err
}

// outcomes are the tolerance's verdicts on the criteria this marker has marked, from the
// marker's own view (marking.Show: on PostgreSQL the store returns nothing more).
func (b *StoreBackend) outcomes(ctx context.Context, id string) (map[string]string, error) {
	v, err := marking.Show(ctx, b.store, id, b.marker)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, c := range v.Criteria {
		if o := c.Outcome(); o != "" {
			out[c.Criterion] = o
		}
	}
	return out, nil
}

// queue is the exam's sessions this marker has criteria left to mark in (marking.Queue's
// unmarked ones, oldest first).
func (b *StoreBackend) queue(ctx context.Context) ([]string, error) {
	items, err := marking.Queue(ctx, b.store, b.examID, b.marker)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		if it.Reason == marking.QueueUnmarked {
			out = append(out, it.SessionID)
		}
	}
	return out, nil
}

// Next is the session after the given one in the queue (oldest first, wrapping round), so a
// marker who leaves one half marked moves on and comes back to it; the first of the queue when
// the given one is done (or ""), "" when the queue is empty.
func (b *StoreBackend) Next(ctx context.Context, after string) (string, error) {
	if b.examID == "" {
		return "", nil
	}
	q, err := b.queue(ctx)
	if err != nil || len(q) == 0 {
		return "", err
	}
	i := slices.Index(q, after)
	return q[(i+1)%len(q)], nil
}

// Panel runs the model panel on the sheet's transcript and criteria.
func (b *StoreBackend) Panel(ctx context.Context, s *Sheet) (*panel.Result, error) {
	if b.panel == nil {
		return nil, ErrNoPanel
	}
	in := panel.Input{SessionID: s.SessionID, Criteria: panel.CriteriaFrom(s.Marking, s.Evidence)}
	for _, l := range s.Lines {
		in.Segments = append(in.Segments, panel.Segment{ID: l.SegmentID, NodeID: l.NodeID, Speaker: l.Speaker, Text: l.Text})
	}
	res, err := b.panel(ctx, in)
	if res != nil {
		// The run is evidence: stored (the lock covers it) even when some member failed.
		if _, serr := marking.SavePanelRun(ctx, b.store, s.SessionID, res, time.Now()); serr != nil {
			return res, errors.Join(err, serr)
		}
	}
	return res, err
}

// Play plays the recording from offset with sox's play; its output goes nowhere (the console
// owns the terminal).
func (b *StoreBackend) Play(ctx context.Context, path string, offset, length time.Duration) error {
	if b.player == "" {
		return errors.New("no audio player: install sox (its play command) to listen")
	}
	if strings.HasSuffix(path, sessions.EncryptedSuffix) {
		if b.decrypt == nil {
			return fmt.Errorf("%s: %w", filepath.Base(path), sessions.ErrEncrypted)
		}
		plain, remove, err := b.decrypt(path)
		if err != nil {
			return err
		}
		defer remove()
		path = plain
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

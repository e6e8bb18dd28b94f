package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/sessions"
)

// Guardrail names and codes from the runtime's event stream that raise alerts.
const (
	guardrailDistress = "distress"
	guardrailAnxiety  = "anxiety_neutrality"
	guardrailTime     = "time_budget"
	actionIntercepted = "output_intercepted"
)

// Board is every exam the control room follows. It is not safe for concurrent use: one
// goroutine (the console's Update) owns it.
type Board struct {
	th   Thresholds
	rows map[string]*Row
	// awaitingMarks is the last count of finished exams waiting to be marked, -1 unknown.
	awaitingMarks int
	// failedPassbacks is the last count of scores the gradebook did not take, -1 unknown.
	failedPassbacks int
	// waiting are the rooms with an exam dispatched and not started, by room (waiting.go).
	waiting map[string]*Waiting
}

// NewBoard returns an empty board; zero thresholds take the defaults.
func NewBoard(th Thresholds) (*Board, error) {
	th, err := th.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Board{th: th, rows: map[string]*Row{}, awaitingMarks: -1, failedPassbacks: -1, waiting: map[string]*Waiting{}}, nil
}

// Thresholds are the board's thresholds, defaults filled in.
func (b *Board) Thresholds() Thresholds { return b.th }

// AwaitingMarks is how many finished exams wait to be marked (docs/marking.md), and false
// before the store has said.
func (b *Board) AwaitingMarks() (int, bool) { return b.awaitingMarks, b.awaitingMarks >= 0 }

// FailedPassbacks is how many scores the LMS gradebook did not take (docs/lms.md; examtui
// marks queue names them), and false before the store has said.
func (b *Board) FailedPassbacks() (int, bool) { return b.failedPassbacks, b.failedPassbacks >= 0 }

// Len is how many exams the board holds.
func (b *Board) Len() int { return len(b.rows) }

// Row returns the exam with this session id, or nil.
func (b *Board) Row(id string) *Row { return b.rows[id] }

func (b *Board) row(id string) *Row {
	r := b.rows[id]
	if r == nil {
		r = &Row{SessionID: textsafe.Line(id)}
		b.rows[id] = r
	}
	return r
}

// Upsert records a session's metadata from the store; an interrupted session raises its alert.
func (b *Board) Upsert(s *sessions.Session) []Alert {
	r := b.row(s.ID)
	r.Candidate, r.Title, r.Examiner = textsafe.Line(s.Candidate), textsafe.Line(s.Title), textsafe.Line(s.Examiner)
	r.Input = textsafe.Line(s.Input.String())
	r.StartedAt = s.StartedAt
	if !s.EndedAt.IsZero() {
		r.EndedAt = s.EndedAt
	}
	if s.State != "" && r.examState == "" {
		r.examState = s.State
	}
	r.died = s.Interrupted && s.EndedAt.IsZero()
	r.updateState()
	if r.died {
		return b.raise(r, Alert{Kind: AlertInterrupted, At: s.LastEventAt, Detail: fmt.Sprintf("its process stopped at seq %d; resume: examtui run --resume %s", s.EventCount, r.SessionID)})
	}
	b.clear(r, AlertInterrupted)
	return nil
}

// Cost prices a row's usage from the board's price table.
func (b *Board) Cost(r *Row) usage.Cost { return r.Usage.Cost(b.th.Prices) }

// RoomInfo is what a LiveKit room says about the exam it runs.
type RoomInfo struct {
	Room      string
	Candidate string // the candidate's identity in the room, if one is there
}

// SetRoom notes that an exam runs in a LiveKit room; a session the store does not know (its bot
// writes elsewhere) gets its input and candidate from the room.
func (b *Board) SetRoom(id string, info RoomInfo) {
	r := b.row(id)
	r.Room = textsafe.Line(info.Room)
	if r.Input == "" {
		r.Input = runtime.SourceRoom.String()
	}
	if r.Candidate == "" {
		r.Candidate = textsafe.Line(info.Candidate)
	}
}

// Apply feeds one event of a session and returns the alerts it newly raised. Events at or
// below the row's last seq are ignored, so a follower may overlap.
func (b *Board) Apply(ev runtime.Event) []Alert {
	r := b.row(ev.SessionID)
	if ev.Seq > 0 && ev.Seq <= r.LastSeq {
		return nil
	}
	r.LastSeq = max(r.LastSeq, ev.Seq)
	if ev.Timestamp.After(r.LastEventAt) {
		r.LastEventAt = ev.Timestamp
	}
	// Any event means the exam is not stalled.
	b.clear(r, AlertStalled)
	pl, err := ev.Decode()
	gap := r.restarts.Gap(ev, pl, r.examState)
	if err != nil {
		return nil // a newer event kind: nothing to show
	}
	at := ev.Timestamp
	alert := func(k AlertKind, node, detail string) Alert {
		return Alert{Kind: k, NodeID: textsafe.Line(node), At: at, Seq: ev.Seq, Detail: textsafe.Line(detail)}
	}
	var out []Alert
	if r.Usage.AddPayload(pl) {
		out = append(out, b.checkBudget(r, alert(AlertCost, usageNode(pl), ""))...)
	}
	if gap > 0 {
		// A restart: the runtime's deadlines moved by the time its clocks stood.
		if !r.nodeDeadline.IsZero() {
			r.nodeDeadline = r.nodeDeadline.Add(gap)
		}
		if !r.examDeadline.IsZero() {
			r.examDeadline = r.examDeadline.Add(gap)
		}
	}
	switch p := pl.(type) {
	case *runtime.ExamStatePayload:
		b.applyState(r, p, at)
	case *runtime.NodeEnteredPayload:
		r.NodeID = textsafe.Line(p.NodeID)
		r.Variant = textsafe.Line(p.Variant)
		r.NodeIndex, r.NodeTotal = p.Progress.CurrentNodeIndex, p.Progress.TotalNodes
		r.nodeEnteredAt = at
		r.nodeBudget = time.Duration(p.TimeBudgetSec) * time.Second
		r.nodeDeadline, r.nodeLeft = runtime.ParseDeadline(p.DeadlineAt), 0
		r.awaiting = false
		r.lowConf = 0
		b.clear(r, AlertOverBudget)
		b.clear(r, AlertLowConfidence)
	case *runtime.TranscriptSegmentPayload:
		if p.Speaker == runtime.SpeakerCandidate && p.IsFinal {
			r.LastCandidate = textsafe.Line(p.Text)
			r.lastCandidateAt = at
			r.awaiting = false // the answer to "are you sure?" came (a yes ends the exam)
			b.clear(r, AlertSilent)
		}
	case *runtime.CommandAcknowledgedPayload:
		r.awaiting = p.AwaitingConfirmation()
	case *runtime.GuardrailTriggeredPayload:
		switch {
		case p.Guardrail == guardrailDistress:
			// The event quotes what the examiner was about to say; what matters is what the
			// candidate said.
			detail := quoteDetail(p.OriginalText, p.Detail)
			if r.LastCandidate != "" {
				detail = fmt.Sprintf("the candidate said %q", r.LastCandidate)
			}
			out = append(out, b.raise(r, alert(AlertDistress, p.NodeID, detail))...)
		case p.Guardrail == guardrailAnxiety:
			out = append(out, b.raise(r, alert(AlertAnxiety, p.NodeID, quoteDetail(p.OriginalText, p.Detail)))...)
		case p.Guardrail == guardrailTime:
			out = append(out, b.raise(r, alert(AlertOverBudget, p.NodeID, "the node's time budget ran out"))...)
		case p.Action == actionIntercepted:
			out = append(out, b.raise(r, alert(AlertOutputFilter, p.NodeID, p.Guardrail+": "+quoteDetail(p.OriginalText, p.Detail)))...)
		}
	case *runtime.RecoveryPayload:
		switch p.Kind {
		case runtime.RecoveryLowConfidence:
			r.lowConf++
			if r.lowConf >= b.th.LowConfidence {
				out = append(out, b.raise(r, alert(AlertLowConfidence, p.NodeID,
					fmt.Sprintf("%d signals rejected for low STT confidence in this node", r.lowConf)))...)
			}
		case runtime.RecoveryCalmSupport:
			out = append(out, b.raise(r, alert(AlertAnxiety, p.NodeID, p.Detail))...)
		case runtime.RecoveryLLMRetry:
			out = append(out, b.examinerError(r, alert(AlertExaminerError, p.NodeID, "retried: "+p.Detail))...)
		}
	case *runtime.ObservationPayload:
		if p.Decision.Reason == "fallback" && p.Valid {
			out = append(out, b.examinerError(r, alert(AlertExaminerError, p.NodeID, "fallback line used"))...)
		}

	case *runtime.SystemErrorPayload:
		if p.Code.Examiner() {
			out = append(out, b.examinerError(r, alert(AlertExaminerError, p.NodeID, p.Code.String()+": "+p.Message))...)
		}
	case *runtime.CandidatePresencePayload:
		switch {
		case p.Status != runtime.PresenceLeft:
			b.clear(r, AlertAway)
		case p.Present == 0 && !r.State.Finished():
			out = append(out, b.raise(r, alert(AlertAway, p.NodeID, p.Summary()))...)
		}
	case *runtime.ExamCompletedPayload:
		r.examState = p.State
		if r.EndedAt.IsZero() {
			r.EndedAt = at
		}
	}
	r.updateState()
	return out
}

func (b *Board) examinerError(r *Row, a Alert) []Alert {
	r.llmErrors++
	if r.llmErrors < b.th.ExaminerErrors {
		return nil
	}
	a.Detail = fmt.Sprintf("%d examiner failures; last: %s", r.llmErrors, a.Detail)
	return b.raise(r, a)
}

func (b *Board) applyState(r *Row, p *runtime.ExamStatePayload, at time.Time) {
	if p.TotalTimeBudgetSec > 0 {
		r.examBudget = time.Duration(p.TotalTimeBudgetSec) * time.Second
	}
	if p.State == runtime.StatePaused && r.examState != runtime.StatePaused {
		r.pausedAt = at
		// Freeze what is left while paused; the runtime restates deadlines on resuming.
		if !r.nodeDeadline.IsZero() {
			r.nodeLeft = r.nodeDeadline.Sub(at)
		}
		if !r.examDeadline.IsZero() {
			r.examLeft = r.examDeadline.Sub(at)
		}
		r.nodeDeadline, r.examDeadline = time.Time{}, time.Time{}
	}
	if p.State == runtime.StateInProgress {
		r.inProgressAt = at
		if d := runtime.ParseDeadline(p.DeadlineAt); !d.IsZero() {
			r.nodeDeadline = d
		}
		if d := runtime.ParseDeadline(p.ExamDeadlineAt); !d.IsZero() {
			r.examDeadline = d
		}
	}
	if p.State != runtime.StateInProgress {
		b.clear(r, AlertSilent)
	}
	r.examState = p.State
}

func (r *Row) updateState() {
	switch {
	case r.examState.Terminal():
		switch r.examState {
		case runtime.StateCompleted:
			r.State = RowCompleted
		case runtime.StateAborted:
			r.State = RowAborted
		default:
			r.State = RowExpired
		}
	case !r.EndedAt.IsZero():
		r.State = RowCompleted
	case r.died:
		r.State = RowInterrupted
	case r.examState == runtime.StatePaused:
		r.State = RowPaused
	case r.examState == runtime.StateInProgress && r.awaiting:
		r.State = RowAwaiting
	case r.examState == runtime.StateInProgress:
		r.State = RowInProgress
	default:
		r.State = RowStarting
	}
	if r.State.Finished() {
		// Nothing about a finished exam needs a human any more except what it went through.
		for _, k := range []AlertKind{AlertStalled, AlertSilent, AlertOverBudget, AlertInterrupted, AlertAway} {
			r.drop(k)
		}
	}
}

// Tick raises and clears the time-based alerts (silent, stalled, node over budget, a dispatch
// not started) at now and returns those newly raised.
func (b *Board) Tick(now time.Time) []Alert {
	out := b.tickWaiting(now)
	for _, r := range b.rows {
		if !r.running() {
			b.clear(r, AlertSilent)
			b.clear(r, AlertStalled)
			if r.State != RowPaused {
				b.clear(r, AlertOverBudget)
			}
			continue
		}
		last := latest(r.LastEventAt, r.inProgressAt)
		stalled := !last.IsZero() && now.Sub(last) >= b.th.Stalled
		if stalled {
			// A stalled exam is silent too; the stall says more.
			b.clear(r, AlertSilent)
			out = append(out, b.raise(r, Alert{Kind: AlertStalled, NodeID: r.NodeID, At: now,
				Detail: "no event for " + roundDur(now.Sub(last)).String()})...)
		}
		heard := latest(r.lastCandidateAt, r.inProgressAt, r.nodeEnteredAt)
		if !stalled && !heard.IsZero() && now.Sub(heard) >= b.th.Silent {
			out = append(out, b.raise(r, Alert{Kind: AlertSilent, NodeID: r.NodeID, At: now,
				Detail: "no answer for " + roundDur(now.Sub(heard)).String()})...)
		}
		if c := r.NodeClock(now); c.Budget > 0 && c.Left() <= -b.th.OverBudgetGrace {
			out = append(out, b.raise(r, Alert{Kind: AlertOverBudget, NodeID: r.NodeID, At: now,
				Detail: fmt.Sprintf("%s over its %s budget", roundDur(-c.Left()), roundDur(c.Budget))})...)
		}
	}
	return out
}

// raise stands a on r; it is returned (new) only if no alert of its kind stood already.
// checkBudget raises the cost alert a (its detail filled in here) once what the row's exam used so far (every stage) costs
// more than the budget per exam.
func (b *Board) checkBudget(r *Row, a Alert) []Alert {
	c := b.Cost(r)
	if !c.Over(b.th.CostPerExam) {
		return nil
	}
	a.Detail = fmt.Sprintf("cost %s is over the budget of %.4f per exam", c.Short(), b.th.CostPerExam)
	return b.raise(r, a)
}

func (b *Board) raise(r *Row, a Alert) []Alert {
	a.SessionID, a.Candidate, a.Title = r.SessionID, r.Candidate, r.Title
	for i, cur := range r.Alerts {
		if cur.Kind == a.Kind {
			r.Alerts[i].Detail = a.Detail // the latest explanation, not a new alert
			return nil
		}
	}
	if a.NodeID == "" {
		a.NodeID = r.NodeID
	}
	r.Alerts = append(r.Alerts, a)
	slices.SortStableFunc(r.Alerts, func(x, y Alert) int { return int(x.Kind) - int(y.Kind) })
	return []Alert{a}
}

// clear removes a standing alert whose condition has passed.
func (b *Board) clear(r *Row, k AlertKind) { r.drop(k) }

func (r *Row) drop(k AlertKind) {
	r.Alerts = slices.DeleteFunc(r.Alerts, func(a Alert) bool { return a.Kind == k })
}

// Rows returns the live exams ordered by urgency then start time, and the exams that finished
// at or after since, most recent first.
func (b *Board) Rows(since time.Time) (live, finished []*Row) {
	for _, r := range b.rows {
		switch {
		case r.State.Finished():
			if !r.EndedAt.Before(since) {
				finished = append(finished, r)
			}
		case r.State == RowInterrupted && r.LastEventAt.Before(since) && r.StartedAt.Before(since):
			// interrupted before the day began: not today's business
		default:
			live = append(live, r)
		}
	}
	slices.SortFunc(live, func(x, y *Row) int {
		if d := x.Urgency() - y.Urgency(); d != 0 {
			return d
		}
		if c := x.StartedAt.Compare(y.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(x.SessionID, y.SessionID)
	})
	slices.SortFunc(finished, func(x, y *Row) int {
		if c := y.EndedAt.Compare(x.EndedAt); c != 0 {
			return c
		}
		return strings.Compare(x.SessionID, y.SessionID)
	})
	return live, finished
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

func roundDur(d time.Duration) time.Duration { return d.Round(time.Second) }

func quoteDetail(text, detail string) string {
	text = strings.TrimSpace(text)
	switch {
	case text != "" && detail != "":
		return fmt.Sprintf("%q (%s)", text, detail)
	case text != "":
		return fmt.Sprintf("%q", text)
	}
	return detail
}

// ApplyUpdate applies one poll of the store (metadata first, then events) and returns the
// alerts it newly raised.
func (b *Board) ApplyUpdate(u Update) []Alert {
	if u.AwaitingMarks != nil {
		b.awaitingMarks = *u.AwaitingMarks
	}
	if u.FailedPassbacks != nil {
		b.failedPassbacks = *u.FailedPassbacks
	}
	var out []Alert
	for _, s := range u.Sessions {
		out = append(out, b.Upsert(s)...)
	}
	for _, ev := range u.Events {
		out = append(out, b.Apply(ev)...)
	}
	return out
}

// usageNode is the node a usage-carrying payload names, for the cost alert.
func usageNode(p runtime.Payload) string {
	switch p := p.(type) {
	case *runtime.ObservationPayload:
		return p.NodeID
	case *runtime.AdminInstructionPayload:
		return p.NodeID
	case *runtime.SpeechUsagePayload:
		return p.NodeID
	case *runtime.CallUsagePayload:
		return p.NodeID
	}
	return ""
}

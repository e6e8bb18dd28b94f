package monitor

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
)

// RowState is an exam's state as the control room shows it.
type RowState int

// Row states.
const (
	RowStarting    RowState = iota // created, not yet in progress
	RowInProgress                  // running
	RowPaused                      // paused by an examiner
	RowAwaiting                    // the candidate asked to finish; awaiting their confirmation
	RowInterrupted                 // its process died; resumable
	RowCompleted
	RowAborted
	RowExpired
)

func (s RowState) String() string {
	switch s {
	case RowStarting:
		return "starting"
	case RowInProgress:
		return "in progress"
	case RowPaused:
		return "paused"
	case RowAwaiting:
		return "awaiting confirmation"
	case RowInterrupted:
		return "interrupted"
	case RowCompleted:
		return "completed"
	case RowAborted:
		return "aborted"
	case RowExpired:
		return "expired"
	}
	return fmt.Sprintf("RowState(%d)", int(s))
}

// Finished reports whether the exam is over (it drops to the finished section).
func (s RowState) Finished() bool { return s == RowCompleted || s == RowAborted || s == RowExpired }

// Row is one exam on the board. The board owns it; read it between updates only.
type Row struct {
	SessionID string
	Candidate string
	Title     string
	Examiner  string
	Input     string // typed | mic | room
	Room      string // the LiveKit room, when the exam runs in one
	StartedAt time.Time
	EndedAt   time.Time

	State     RowState
	examState runtime.ExamState
	restarts  runtime.Restarts // where a resumed exam's clocks restarted, and after how long
	awaiting  bool
	died      bool

	NodeID    string
	NodeIndex int
	NodeTotal int
	// Variant is the version of the current node's question the candidate got ("" without).
	Variant string

	nodeEnteredAt time.Time
	nodeBudget    time.Duration
	nodeDeadline  time.Time     // zero without a budget or while paused
	nodeLeft      time.Duration // frozen remaining while paused
	examBudget    time.Duration
	examDeadline  time.Time
	examLeft      time.Duration
	inProgressAt  time.Time // when it last (re)entered in_progress
	pausedAt      time.Time // when it was last paused

	LastCandidate   string // the candidate's last line
	lastCandidateAt time.Time
	LastEventAt     time.Time
	LastSeq         int64

	lowConf   int
	llmErrors int

	// Usage is what the exam's examiner calls and speech requests consumed so far (Board.Cost prices it).
	Usage usage.Totals

	// Alerts are the alerts standing on this exam, one per kind, most urgent first.
	Alerts []Alert
}

// Clock is a time against a budget: Elapsed of Budget (Budget zero: none).
type Clock struct {
	Elapsed time.Duration
	Budget  time.Duration
}

// Left is what remains of the budget (negative: over).
func (c Clock) Left() time.Duration { return c.Budget - c.Elapsed }

// Fraction is the share of the budget used (0 without a budget).
func (c Clock) Fraction() float64 {
	if c.Budget <= 0 {
		return 0
	}
	return float64(c.Elapsed) / float64(c.Budget)
}

func (r *Row) running() bool {
	return r.State == RowInProgress || r.State == RowAwaiting
}

// NodeClock is the time spent in the current node against its budget, at now.
func (r *Row) NodeClock(now time.Time) Clock {
	return clockAt(r.readAt(now), r.nodeEnteredAt, r.nodeBudget, r.nodeDeadline, r.nodeLeft, r.running())
}

// ExamClock is the time spent in the exam against its budget, at now.
func (r *Row) ExamClock(now time.Time) Clock {
	return clockAt(r.readAt(now), r.StartedAt, r.examBudget, r.examDeadline, r.examLeft, r.running())
}

// readAt is when the clocks stopped: at the end, at the pause, at the last event of an exam
// whose process died; now while it runs.
func (r *Row) readAt(now time.Time) time.Time {
	switch {
	case !r.EndedAt.IsZero():
		return r.EndedAt
	case r.State == RowPaused && !r.pausedAt.IsZero():
		return r.pausedAt
	case r.State == RowInterrupted && !r.LastEventAt.IsZero():
		return r.LastEventAt
	}
	return now
}

// clockAt reads a budget from its deadline while running (pauses move deadlines, so the
// runtime's deadline is the truth), from the remaining time frozen at a pause otherwise, and
// from the start time when there is no budget.
func clockAt(now, start time.Time, budget time.Duration, deadline time.Time, left time.Duration, running bool) Clock {
	switch {
	case budget > 0 && running && !deadline.IsZero():
		return Clock{Elapsed: budget - deadline.Sub(now), Budget: budget}
	case budget > 0 && left != 0:
		return Clock{Elapsed: budget - left, Budget: budget}
	case start.IsZero():
		return Clock{Budget: budget}
	}
	return Clock{Elapsed: max(now.Sub(start), 0), Budget: budget}
}

// Has reports whether an alert of kind k stands on the row.
func (r *Row) Has(k AlertKind) bool {
	for _, a := range r.Alerts {
		if a.Kind == k {
			return true
		}
	}
	return false
}

// Urgency orders rows: the most urgent standing alert first (lower is more urgent), then
// rows needing a decision (awaiting confirmation, paused), then the rest.
func (r *Row) Urgency() int {
	u := len(AlertKinds) + 2
	for _, a := range r.Alerts {
		u = min(u, int(a.Kind))
	}
	if u == len(AlertKinds)+2 {
		switch r.State {
		case RowAwaiting:
			u = len(AlertKinds)
		case RowPaused:
			u = len(AlertKinds) + 1
		}
	}
	return u
}

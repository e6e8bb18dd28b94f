package monitor

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/runtime/usage"
)

// AlertKind names a reason an exam needs a human.
type AlertKind int

// Alert kinds, most urgent first (the order urgency sorts by).
const (
	AlertDistress      AlertKind = iota // the distress guardrail fired
	AlertInterrupted                    // the exam's process died
	AlertAway                           // no candidate is in the exam's room; the exam is paused
	AlertStalled                        // no event at all for a while though the exam runs
	AlertExaminerError                  // LLM errors, invalid observations, fallback lines
	AlertOverBudget                     // the current node ran past its time budget
	AlertAnxiety                        // the anxiety guardrail (calm support) fired
	AlertOutputFilter                   // an output filter intercepted what the examiner said
	AlertLowConfidence                  // evidence rejected for low STT confidence, repeatedly
	AlertSilent                         // the candidate has not answered for a while
	AlertCost                           // the exam's cost passed the budget per exam
	AlertNotStarted                     // a room's exam was dispatched but no worker has started it
)

// AlertKinds lists every kind in urgency order.
var AlertKinds = []AlertKind{AlertDistress, AlertInterrupted, AlertAway, AlertStalled, AlertExaminerError, AlertOverBudget,
	AlertAnxiety, AlertOutputFilter, AlertLowConfidence, AlertSilent, AlertCost, AlertNotStarted}

func (k AlertKind) String() string {
	switch k {
	case AlertDistress:
		return "distress"
	case AlertInterrupted:
		return "interrupted"
	case AlertAway:
		return "away"
	case AlertStalled:
		return "stalled"
	case AlertExaminerError:
		return "examiner_error"
	case AlertOverBudget:
		return "over_budget"
	case AlertAnxiety:
		return "anxiety"
	case AlertOutputFilter:
		return "output_filter"
	case AlertLowConfidence:
		return "low_confidence"
	case AlertSilent:
		return "silent"
	case AlertCost:
		return "cost"
	case AlertNotStarted:
		return "not_started"
	}
	return fmt.Sprintf("AlertKind(%d)", int(k))
}

// Badge is the kind's short label in the list.
func (k AlertKind) Badge() string {
	switch k {
	case AlertDistress:
		return "DISTRESS"
	case AlertInterrupted:
		return "DIED"
	case AlertAway:
		return "AWAY"
	case AlertStalled:
		return "STALL"
	case AlertExaminerError:
		return "LLM"
	case AlertOverBudget:
		return "OVER"
	case AlertAnxiety:
		return "ANX"
	case AlertOutputFilter:
		return "FILTER"
	case AlertLowConfidence:
		return "STT"
	case AlertSilent:
		return "SILENT"
	case AlertCost:
		return "COST"
	case AlertNotStarted:
		return "WAITING"
	}
	return "?"
}

// Explain says in a sentence what the kind means, for the selected row's detail.
func (k AlertKind) Explain() string {
	switch k {
	case AlertDistress:
		return "the candidate showed distress; the exam moved on or ended to protect them"
	case AlertInterrupted:
		return "the process running this exam died; the session is kept and can be resumed"
	case AlertAway:
		return "the candidate left the exam's room; the exam is paused until they come back"
	case AlertStalled:
		return "nothing has happened in this exam for a while, though it is running"
	case AlertExaminerError:
		return "the examiner failed (LLM error, invalid reply) and a fallback line was used"
	case AlertOverBudget:
		return "the current node has run past its time budget"
	case AlertAnxiety:
		return "the candidate seemed anxious; the examiner gave calm support"
	case AlertOutputFilter:
		return "an output filter stopped something the examiner was about to say"
	case AlertLowConfidence:
		return "evidence was rejected repeatedly because speech recognition was unsure"
	case AlertSilent:
		return "the candidate has not answered for a while"
	case AlertCost:
		return "what the exam's examiner calls cost has passed the budget per exam (budget.costPerExam)"
	case AlertNotStarted:
		return "an exam was dispatched to this room but no worker has started it: every worker may be full or draining, or none is running"
	}
	return ""
}

// Alert is one raised alert on one exam.
type Alert struct {
	Kind      AlertKind `json:"-"`
	SessionID string    `json:"sessionId"`
	Candidate string    `json:"candidate,omitempty"`
	Title     string    `json:"exam,omitempty"`
	NodeID    string    `json:"nodeId,omitempty"`
	At        time.Time `json:"at"`
	Seq       int64     `json:"seq,omitempty"`  // the event that raised it; 0 for a time-based alert
	Room      string    `json:"room,omitempty"` // the LiveKit room of a dispatch not started (no session yet)
	Detail    string    `json:"detail,omitempty"`
}

// Thresholds tune the alerts; zero fields take the defaults.
type Thresholds struct {
	// Silent: no candidate answer for this long while the exam runs.
	Silent time.Duration
	// Stalled: no event at all for this long while the exam runs.
	Stalled time.Duration
	// LowConfidence: this many evidence signals rejected for low STT confidence.
	LowConfidence int
	// ExaminerErrors: this many examiner failures (errors, invalid replies, fallbacks).
	ExaminerErrors int
	// OverBudgetGrace: how long past the node's deadline before it counts as over budget.
	OverBudgetGrace time.Duration
	// Prices price each exam's usage (the config file's prices:); CostPerExam raises the cost
	// alert when a known cost passes it (0: no cost alert).
	Prices      usage.Prices
	CostPerExam float64
	// NotStarted: a room's dispatch has waited this long without an exam bot in the room.
	NotStarted time.Duration
}

// DefaultThresholds are used for every zero field.
func DefaultThresholds() Thresholds {
	return Thresholds{Silent: 2 * time.Minute, Stalled: 5 * time.Minute, LowConfidence: 3, ExaminerErrors: 1,
		OverBudgetGrace: 15 * time.Second, NotStarted: 30 * time.Second}
}

// withDefaults fills zero fields and rejects negative ones.
func (t Thresholds) withDefaults() (Thresholds, error) {
	d := DefaultThresholds()
	if t.Silent < 0 || t.Stalled < 0 || t.LowConfidence < 0 || t.ExaminerErrors < 0 || t.OverBudgetGrace < 0 || t.CostPerExam < 0 || t.NotStarted < 0 {
		return t, fmt.Errorf("%w: negative value in %+v", ErrInvalidThreshold, t)
	}
	if t.Silent == 0 {
		t.Silent = d.Silent
	}
	if t.Stalled == 0 {
		t.Stalled = d.Stalled
	}
	if t.LowConfidence == 0 {
		t.LowConfidence = d.LowConfidence
	}
	if t.ExaminerErrors == 0 {
		t.ExaminerErrors = d.ExaminerErrors
	}
	if t.OverBudgetGrace == 0 {
		t.OverBudgetGrace = d.OverBudgetGrace
	}
	if t.NotStarted == 0 {
		t.NotStarted = d.NotStarted
	}
	return t, nil
}

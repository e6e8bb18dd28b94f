package marking

import "fmt"

// Status is where one criterion of one session stands in moderation.
type Status int

// Statuses.
const (
	StatusUnknown Status = iota
	// StatusUnmarked: no marker has given a level.
	StatusUnmarked
	// StatusAgreed: every marker gave the same level; that level is final.
	StatusAgreed
	// StatusDisagreed: markers gave different levels and nobody has adjudicated.
	StatusDisagreed
	// StatusAdjudicated: an adjudicator set the final level.
	StatusAdjudicated
	// StatusAwaiting: fewer markers than the scheme needs have marked it.
	StatusAwaiting
	// StatusSettled: the markers' levels are within the tolerance; the rule settled them.
	StatusSettled
)

var statusNames = map[Status]string{StatusUnmarked: "unmarked", StatusAgreed: "agreed", StatusDisagreed: "disagreed", StatusAdjudicated: "adjudicated",
	StatusAwaiting: "awaiting marker", StatusSettled: "settled"}

func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalText writes the status as its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Final reports whether the status gives a final level.
func (s Status) Final() bool {
	return s == StatusAgreed || s == StatusAdjudicated || s == StatusSettled
}

// QueueReason is why a session is in the marking queue.
type QueueReason int

// Queue reasons, in the order a marker works through them.
const (
	QueueUnknown QueueReason = iota
	// QueueUnmarked: a criterion has no level (from the marker asked about, when one is).
	QueueUnmarked
	// QueueDisagreement: markers disagree on a criterion nobody has adjudicated.
	QueueDisagreement
	// QueueReadyToLock: every criterion has a final level; the session waits for its lock.
	QueueReadyToLock
)

var queueNames = map[QueueReason]string{QueueUnmarked: "unmarked", QueueDisagreement: "disagreement", QueueReadyToLock: "ready to lock"}

func (q QueueReason) String() string {
	if n, ok := queueNames[q]; ok {
		return n
	}
	return fmt.Sprintf("QueueReason(%d)", int(q))
}

// MarshalText writes the reason as its name.
func (q QueueReason) MarshalText() ([]byte, error) { return []byte(q.String()), nil }

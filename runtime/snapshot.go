package runtime

import "time"

// Snapshot is the controller's state for views.
type Snapshot struct {
	SessionID string    `json:"sessionId"`
	State     ExamState `json:"state"`
	NodeID    string    `json:"nodeId,omitempty"`
	// Variant is the drawn variant of the current node ("" without variants).
	Variant        string               `json:"variant,omitempty"`
	NodeKind       string               `json:"nodeKind,omitempty"`
	NodeIndex      int                  `json:"nodeIndex"` // 1-based; 0 before the exam starts
	TotalNodes     int                  `json:"totalNodes"`
	Visited        []string             `json:"visited"`
	Turn           int                  `json:"turn"`
	Seq            int64                `json:"seq"`
	FollowUps      int                  `json:"followUps"`
	MaxFollowUps   int                  `json:"maxFollowUps"`
	OffTopic       int                  `json:"offTopic"`
	MaxOffTopic    int                  `json:"maxOffTopic"`
	Clarifications int                  `json:"clarifications"`
	Evidence       int                  `json:"evidence"` // accepted distinct targets in the node
	Required       int                  `json:"required"`
	Coverage       float64              `json:"coverage"`
	NodeElapsed    time.Duration        `json:"nodeElapsed"`
	ExamElapsed    time.Duration        `json:"examElapsed"`
	NodeDeadline   time.Time            `json:"nodeDeadline,omitzero"` // zero while paused or unbudgeted
	ExamDeadline   time.Time            `json:"examDeadline,omitzero"`
	TTSSpeed       float64              `json:"ttsSpeed"`
	QueuedAdmin    int                  `json:"queuedAdmin"`
	PendingFinish  bool                 `json:"pendingFinish"`
	LastQuestion   string               `json:"lastQuestion,omitempty"`
	Examiner       string               `json:"examiner"`
	Ledger         []LedgerEntry        `json:"ledger"`
	Misconceptions []MisconceptionEntry `json:"misconceptions,omitempty"`
}

// Snapshot returns a consistent copy of the controller's state.
func (c *Controller) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	s := Snapshot{
		SessionID: c.sessionID, State: c.state, TotalNodes: len(c.exam.Nodes), Visited: append([]string(nil), c.visited...),
		Turn: c.turn, Seq: c.seq, FollowUps: c.followUps, OffTopic: c.offTopic, Clarifications: c.clarifications,
		NodeElapsed: c.nodeClock.elapsed(now), ExamElapsed: c.examClock.elapsed(now), TTSSpeed: c.ttsSpeed,
		QueuedAdmin: len(c.queued), PendingFinish: c.pendingFinish, LastQuestion: c.lastQuestion, Examiner: c.ex.Name(),
		Ledger: c.ledger.Entries(), Misconceptions: c.ledger.Misconceptions(),
	}
	if n := c.node; n != nil {
		nc := n.Controller
		s.NodeID, s.NodeKind, s.NodeIndex = n.NodeID, n.Kind.String(), n.Index+1
		s.Variant = n.Variant
		s.MaxFollowUps, s.MaxOffTopic, s.Required = nc.MaxFollowUps, nc.MaxOffTopicRedirects, nc.RequiredEvidenceCount
		s.Evidence = len(c.ledger.Covered(n.NodeID, nc.EvidenceSignals))
		s.Coverage = c.ledger.Coverage(n.NodeID, nc.EvidenceSignals)
		if c.state == StateInProgress && nc.TimeBudgetSec > 0 {
			s.NodeDeadline = now.Add(time.Duration(nc.TimeBudgetSec)*time.Second - s.NodeElapsed)
		}
	}
	if c.state == StateInProgress && c.exam.TotalTimeBudgetSec > 0 {
		s.ExamDeadline = now.Add(time.Duration(c.exam.TotalTimeBudgetSec)*time.Second - s.ExamElapsed)
	}
	return s
}

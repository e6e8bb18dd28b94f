package runtime

// EventCallUsage records what an examiner call consumed that no other event carries: a
// speculative call whose reply was not used (the candidate went on speaking, or the state
// changed). A turn's call travels on its observation, an immediate instruction's on its
// admin_instruction. It goes to the examiners and the store, never to the candidate.
const EventCallUsage EventType = "call_usage"

// CallUsagePayload is one unused examiner call's usage.
type CallUsagePayload struct {
	Call   CallKind   `json:"call"`
	NodeID string     `json:"nodeId,omitempty"`
	Usage  *TurnUsage `json:"usage"`
	// Failed says the call never answered (it failed, or was cancelled after it began): it is
	// counted as a failed request of Usage.Model, with no tokens.
	Failed bool `json:"failed,omitempty"`
}

// EventType implements Payload.
func (*CallUsagePayload) EventType() EventType { return EventCallUsage }

// UsageReporter is implemented by examiners that call a paid model (the LLM examiner): a call
// of theirs that failed or was cancelled is counted as a failed request, with no usage.
type UsageReporter interface {
	ReportsUsage() bool
}

// unusedSpeculation records a speculation that will not be used, once its call has ended (and
// at once if it has). Caller holds c.mu.
func (c *Controller) unusedSpeculation(s *speculation) {
	s.unused = true
	c.settleSpeculation(s)
}

// settleSpeculation emits the usage of an unused speculation whose call has ended, once: its
// reply's usage, or for a model examiner whose call failed or was cancelled after it began, one
// failed request. Caller holds c.mu.
func (c *Controller) settleSpeculation(s *speculation) {
	if !s.finished || !s.unused || s.settled || c.usable() != nil {
		return
	}
	s.settled = true
	p := &CallUsagePayload{Call: CallSpeculation, NodeID: s.nodeID}
	switch r, ok := s.ex.(UsageReporter); {
	case s.reply != nil:
		p.Usage = s.reply.Usage
	case s.began && ok && r.ReportsUsage():
		p.Usage, p.Failed = &TurnUsage{Model: s.ex.Name()}, true
	}
	if p.Usage != nil {
		c.emit(p)
	}
}

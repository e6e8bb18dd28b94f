package runtime

// EventContextSummary records the model's summary of older turns in a node: what replaced
// the extractive summary in the examiner's context, so a resume puts the same text back.
const EventContextSummary EventType = "context_summary"

// ContextSummaryPayload is one model-written summary of a node's older turns. Compression is
// the node's compression it summarises (1 for the first): the turns that compression took out
// of the history, with the summary that stood before them. Never spoken.
type ContextSummaryPayload struct {
	NodeID      string `json:"nodeId"`
	Compression int    `json:"compression"`
	// Messages is how many messages of the history the summary covers, besides the summary
	// before it.
	Messages int    `json:"messages"`
	Summary  string `json:"summary"`
	// Usage is what the summary call consumed, as the server reported it.
	Usage *TurnUsage `json:"usage,omitempty"`
}

// EventType implements Payload.
func (*ContextSummaryPayload) EventType() EventType { return EventContextSummary }

package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
)

// Within a node the examiner's history is compressed when it passes its budget (context.go):
// at once into an extractive summary (each turn's first sentence), which the offline examiner
// keeps. An examiner that can summarise (Summariser: the LLM examiner) is then asked, in a
// separate bounded call after the turn, for a summary of the same turns with the summary
// before them, to the spec's context.summaryTokens. The call is never spoken; its text
// replaces the extractive summary and is recorded as a context_summary event, which a resume
// replays, so the resumed examiner sees the same text. When the call fails, a system_error
// (summary_failed) says so and the extractive summary stands.

// summaryCallTimeout bounds the summary call: it runs after the turn, holding the next one.
const summaryCallTimeout = 20 * time.Second

// Summariser is an examiner that can also summarise older turns of a node.
type Summariser interface {
	Summarise(ctx context.Context, req *SummaryRequest) (*SummaryReply, error)
}

// SummaryRequest asks for one summary.
type SummaryRequest struct {
	Exam   *spec.Exam
	NodeID string
	// Previous is the summary of the turns before these ("" for the node's first).
	Previous string
	// Messages are the turns to add to it, oldest first.
	Messages []spec.Message
	// MaxTokens is the budget of the summary (context.summaryTokens).
	MaxTokens int
}

// SummaryReply is the model's summary.
type SummaryReply struct {
	Text  string
	Usage *TurnUsage
}

// pendingSummary is a compression whose model summary has not been recorded yet.
type pendingSummary struct {
	compression int
	previous    string
	messages    []spec.Message
}

// summariseOlderTurns makes the summary call for the compression waiting for one, if the
// examiner can summarise, and records its result. It runs after a turn, outside mu, with
// turnMu held, so no other turn changes the history meanwhile. It returns the event sink's
// failure, if recording failed.
func (c *Controller) summariseOlderTurns(ctx context.Context) error {
	c.mu.Lock()
	p := c.ctxm.pending
	s, ok := c.ex.(Summariser)
	if p == nil || !ok || c.sinkErr != nil || c.node == nil || c.state.Terminal() {
		err := c.sinkErr
		c.mu.Unlock()
		return err
	}
	req := &SummaryRequest{Exam: c.exam, NodeID: c.node.NodeID, Previous: p.previous, Messages: p.messages,
		MaxTokens: c.exam.Context.SummaryTokensOrDefault()}
	gen := c.nodeGen
	c.mu.Unlock()

	callCtx, cancel := context.WithTimeout(ctx, summaryCallTimeout)
	reply, err := s.Summarise(callCtx, req)
	cancel()
	text := ""
	if err == nil {
		text = boundSummary(reply.Text, req.MaxTokens)
		if text == "" {
			err = ErrEmptySummary
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodeGen != gen || c.ctxm.pending != p || c.usable() != nil {
		return c.sinkErr // the node changed (its summaries went with it) or the exam stopped
	}
	if err != nil {
		c.log.Warn("summary call failed; the extractive summary stands", "node", req.NodeID, "err", err)
		c.emit(&SystemErrorPayload{Code: CodeSummaryFailed, NodeID: req.NodeID,
			Message: fmt.Sprintf("the model could not summarise the older turns (%v); the examiner keeps their first sentences instead", err)})
		c.ctxm.summaryFailed()
		return c.sinkErr
	}
	sp := &ContextSummaryPayload{NodeID: req.NodeID, Compression: p.compression, Messages: len(p.messages), Summary: text}
	sp.Usage = c.checkedUsage(reply.Usage, req.NodeID)
	c.emit(sp)
	c.ctxm.applySummary(sp)
	return c.sinkErr
}

// boundSummary trims the model's text and cuts it to the budget (about 4 characters a token,
// the estimate every context budget uses), at a sentence end where one is near.
func boundSummary(text string, maxTokens int) string {
	text = strings.TrimSpace(text)
	limit := maxTokens * 4
	if len(text) <= limit {
		return text
	}
	cut := TruncateRunes(text, limit)
	if i := strings.LastIndexAny(cut, ".!?"); i > limit/2 {
		return cut[:i+1]
	}
	return cut
}

// summaryText is the in-node summary as the examiner gets it: the model's, then the
// extractive items of compressions since.
func (cm *contextManager) summaryText() string {
	parts := make([]string, 0, 1+len(cm.summary))
	if cm.modelSummary != "" {
		parts = append(parts, cm.modelSummary)
	}
	parts = append(parts, cm.summary...)
	return strings.Join(parts, " ")
}

// applySummary puts a model summary in place of the extractive one, live and on replay. The
// items of a compression made after the one it summarises stay beside it.
func (cm *contextManager) applySummary(p *ContextSummaryPayload) {
	if cm.pending != nil && cm.pending.compression == p.Compression {
		cm.pending = nil
	}
	if p.Compression == cm.compressions {
		cm.summary = nil
	}
	cm.modelSummary = p.Summary
}

// summaryFailed closes the waiting compression after a failed summary call (live, and on
// replay of its summary_failed system_error): the extractive summary stands.
func (cm *contextManager) summaryFailed() { cm.pending = nil }

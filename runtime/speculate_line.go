package runtime

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/examtui/examtui/spec"
)

// SpeculativeLine is what the examiner would say first if the pending speculation's turn were
// submitted now, as the spoken events would carry it: the reply's spokenText through the
// output filters (its parts joined by spaces), or, when the reply moves the exam on, the next
// node's opening line; with the node it is said in and its speed. It waits, bounded by ctx,
// for the speculative call to finish. ok is false when there is no pending speculation, it
// failed or was replaced meanwhile, or what follows cannot be told ahead (a command, anxiety
// support, the end of the exam without an end node, a node with variants to draw).
//
// It emits nothing and changes nothing: it is a guess for a voice path that synthesises the
// first sentence during the pause, whose audio is used only when a spoken event later carries
// those very words. The decision is still made once, by SubmitTurn.
func (c *Controller) SpeculativeLine(ctx context.Context) (SpokenPayload, bool) {
	c.mu.Lock()
	s := c.speculation.s
	c.mu.Unlock()
	if s == nil {
		return SpokenPayload{}, false
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return SpokenPayload{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.speculation.s != s || s.err != nil || s.reply == nil || c.node == nil || c.node.NodeID != s.nodeID || c.usable() != nil {
		return SpokenPayload{}, false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(s.reply.Arguments, &fields); err != nil {
		return SpokenPayload{}, false
	}
	spoken := replySpokenText(s.reply)
	safety, _ := c.listen.classify(s.text)
	speaks, reason := c.predictReply(safety, fields)
	switch {
	case speaks:
		return c.speculativeReply(s, spoken)
	case reason != "":
		return c.speculativeOpening(reason)
	}
	return SpokenPayload{}, false
}

// speculativeReply is the reply's spokenText as the decision would say it. Caller holds mu.
func (c *Controller) speculativeReply(s *speculation, spoken string) (SpokenPayload, bool) {
	nf := c.filtersFor(s.nodeID)
	if nf == nil {
		return SpokenPayload{}, false
	}
	applying := c.applying
	c.applying = s.admin // as finishTurn filters the reply
	_, parts, _ := c.outputFilters(nf, spoken)
	c.applying = applying
	text := strings.TrimSpace(strings.Join(parts, " "))
	if text == "" {
		text = c.lastQuestion
	}
	return SpokenPayload{NodeID: s.nodeID, Text: text, Source: SpokenExaminer, TTSSpeed: c.ttsSpeed}, text != ""
}

// speculativeOpening is the first line of the node a transition for reason enters: its
// introduction, else its prompt, through its own filters (enterNode). Caller holds mu.
func (c *Controller) speculativeOpening(reason spec.Reason) (SpokenPayload, bool) {
	next, ok := c.node.Successor(reason)
	n := c.exam.Node(next)
	if !ok || n == nil || len(n.VariantIDs()) > 0 {
		return SpokenPayload{}, false
	}
	nf := c.filtersFor(next)
	if nf == nil {
		return SpokenPayload{}, false
	}
	text, source := n.Controller.ScenarioIntro, SpokenIntro
	if strings.TrimSpace(text) == "" {
		text, source = n.Controller.ConversationPrompt, SpokenPrompt
	}
	_, parts, _ := nf.runOwnFilters(text)
	text = strings.TrimSpace(strings.Join(parts, " "))
	return SpokenPayload{NodeID: next, Text: text, Source: source, TTSSpeed: c.ttsSpeed}, text != ""
}

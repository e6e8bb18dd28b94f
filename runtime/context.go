package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/spec"
)

// Context budgets (pipecat-adapter §6: summarise past 4000 tokens or 10 messages, keep the last
// 2 messages verbatim). The summary itself is capped so memory stays flat however long the exam.
const (
	defaultMaxContextMessages = 10
	defaultMaxContextTokens   = 4000
	keepRecentMessages        = 2
	summaryCapRunes           = 1500
	nodeSummaryCapRunes       = 600
	summaryItemRunes          = 160
)

// contextManager builds the LLM context (ExaminerRequest.Messages) per node strategy and keeps
// the in-node history bounded with a deterministic extractive summary.
type contextManager struct {
	maxMessages int
	maxTokens   int

	carried      string         // summary of the previous node (carrySummary)
	examSummary  []string       // one bounded line per node left
	priorSummary string         // reset_with_summary: what came before this node
	prior        []spec.Message // append: history carried over from earlier nodes
	summary      []string       // in-node summary items of compressed messages (since the model's summary)
	modelSummary string         // the model's summary of the node's older turns (summary.go)
	pending      *pendingSummary
	history      []spec.Message // in-node messages since the last compression
	compressions int

	reply       *spec.Message  // the utterance being said, recorded at the next message (context_turns.go)
	replySource string         // its spoken source
	turn        *openTurn      // the candidate turn the examiner is deciding on
	notes       []anchoredNote // resume notes in this node, beside the history and outside the budgets
}

func newContextManager() *contextManager {
	return &contextManager{maxMessages: defaultMaxContextMessages, maxTokens: defaultMaxContextTokens}
}

// enterNode applies the node's context strategy. prevID is the node being left ("" at start).
func (cm *contextManager) enterNode(node *spec.CompiledNode, prevID string) {
	cm.flush()
	if prevID != "" {
		line := cm.nodeSummary(prevID)
		cm.carried = line
		if line != "" {
			cm.examSummary = appendBounded(cm.examSummary, line, summaryCapRunes)
		}
	}
	switch node.LLM.ContextStrategy {
	case spec.ContextAppend:
		if s := cm.summaryText(); s != "" {
			cm.prior = append(cm.prior, spec.Message{Role: "developer", Content: "Earlier: " + s})
		}
		cm.prior = append(cm.prior, cm.history...)
		cm.priorSummary = ""
		// The carried-over history obeys the same budget as the node's own.
		if len(cm.prior) > cm.maxMessages || tokens(cm.prior) > cm.maxTokens {
			items := extractItems(cm.prior[:len(cm.prior)-min(len(cm.prior), keepRecentMessages)])
			keep := cm.prior[len(cm.prior)-min(len(cm.prior), keepRecentMessages):]
			cm.priorSummary = capItems(items, summaryCapRunes)
			cm.prior = append([]spec.Message(nil), keep...)
		}
	case spec.ContextResetWithSummary:
		cm.prior = nil
		cm.priorSummary = strings.Join(cm.examSummary, " ")
	default:
		cm.prior = nil
		cm.priorSummary = ""
	}
	cm.summary = nil
	cm.modelSummary = ""
	cm.pending = nil
	cm.history = nil
	cm.notes = nil
}

// nodeSummary is a short extractive summary of what the candidate said in the node being left.
func (cm *contextManager) nodeSummary(nodeID string) string {
	var said []string
	for _, it := range cm.summary {
		if strings.HasPrefix(it, "Candidate: ") {
			said = append(said, strings.TrimPrefix(it, "Candidate: "))
		}
	}
	for _, m := range cm.history {
		if m.Role == "user" && !strings.HasPrefix(m.Content, "[") {
			said = append(said, firstSentence(m.Content, summaryItemRunes))
		}
	}
	if cm.modelSummary != "" {
		line := fmt.Sprintf("In %s: %s", nodeID, cm.modelSummary)
		if len(said) > 0 {
			line += " Then the candidate said: " + strings.Join(said, " / ")
		}
		return TruncateRunes(line, nodeSummaryCapRunes)
	}
	if len(said) == 0 {
		return ""
	}
	return TruncateRunes(fmt.Sprintf("In %s the candidate said: %s", nodeID, strings.Join(said, " / ")), nodeSummaryCapRunes)
}

// messages builds the context for one examiner call, with the utterance being said recorded.
func (cm *contextManager) messages(node *spec.CompiledNode, extra []spec.Message, final *spec.Message) []spec.Message {
	cm.flush()
	out := make([]spec.Message, 0, 4+len(node.LLM.TaskMessages)+len(cm.prior)+len(cm.history)+len(cm.notes)+len(extra))
	if node.LLM.RoleMessage != "" {
		out = append(out, spec.Message{Role: "system", Content: node.LLM.RoleMessage})
	}
	for i, tm := range node.LLM.TaskMessages {
		out = append(out, tm)
		if i == 0 && node.Controller.CarrySummary && cm.carried != "" {
			out = append(out, spec.Message{Role: "developer", Content: "Previous topic summary: " + cm.carried})
		}
	}
	if len(node.LLM.TaskMessages) == 0 && node.Controller.CarrySummary && cm.carried != "" {
		out = append(out, spec.Message{Role: "developer", Content: "Previous topic summary: " + cm.carried})
	}
	if cm.priorSummary != "" {
		out = append(out, spec.Message{Role: "developer", Content: "Summary of the conversation so far: " + cm.priorSummary})
	}
	out = append(out, cm.prior...)
	if s := cm.summaryText(); s != "" {
		out = append(out, spec.Message{Role: "developer", Content: "Summary of earlier turns on this topic: " + s})
	}
	out = cm.withNotes(out)
	out = append(out, extra...)
	if final != nil {
		out = append(out, *final)
	}
	return out
}

// withNotes appends the in-node history to out with the notes at their places.
func (cm *contextManager) withNotes(out []spec.Message) []spec.Message {
	from := 0
	for _, n := range cm.notes {
		out = append(out, cm.history[from:n.at]...)
		out = append(out, n.msg)
		from = n.at
	}
	return append(out, cm.history[from:]...)
}

// record appends messages to the in-node history (after the utterance being said) and
// compresses it past the budget.
func (cm *contextManager) record(msgs ...spec.Message) {
	cm.flush()
	cm.append(msgs...)
}

// append is record without the utterance being said.
func (cm *contextManager) append(msgs ...spec.Message) {
	cm.history = append(cm.history, msgs...)
	if len(cm.history) <= cm.maxMessages && tokens(cm.history) <= cm.maxTokens {
		return
	}
	cut := len(cm.history) - keepRecentMessages
	// What a model may summarise instead (summary.go): these turns, after the summary so far.
	pending := &pendingSummary{previous: cm.summaryText(), messages: slices.Clone(cm.history[:cut])}
	for _, it := range extractItems(cm.history[:cut]) {
		cm.summary = appendBounded(cm.summary, it, summaryCapRunes)
	}
	// Copy the tail so the old backing array (and its strings) can be collected.
	cm.history = append(make([]spec.Message, 0, cm.maxMessages+2), cm.history[cut:]...)
	cm.compressions++
	pending.compression = cm.compressions
	cm.pending = pending
	cm.shiftNotes(cut)
}

// shiftNotes moves the notes with the history when its first cut messages went into the
// summary: a note about them now stands at the start of what is left.
func (cm *contextManager) shiftNotes(cut int) {
	for i := range cm.notes {
		cm.notes[i].at = max(0, cm.notes[i].at-cut)
	}
}

// size is the number of messages and estimated tokens held, for tests of boundedness.
func (cm *contextManager) size() (msgs, toks int) {
	all := append(append([]spec.Message{}, cm.prior...), cm.history...)
	n := len(cm.priorSummary) + len(cm.carried) + len(cm.modelSummary)
	for _, s := range cm.summary {
		n += len(s)
	}
	return len(all), tokens(all) + n/4
}

func tokens(msgs []spec.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)/4 + 4
	}
	return n
}

func extractItems(msgs []spec.Message) []string {
	var out []string
	for _, m := range msgs {
		switch m.Role {
		case "user":
			out = append(out, "Candidate: "+firstSentence(m.Content, summaryItemRunes))
		case "assistant":
			out = append(out, "Examiner: "+firstSentence(m.Content, summaryItemRunes/2))
		case "developer", "system":
			out = append(out, "Note: "+firstSentence(m.Content, summaryItemRunes/2))
		}
	}
	return out
}

func firstSentence(s string, capRunes int) string {
	ss := SplitSentences(s)
	if len(ss) == 0 {
		return ""
	}
	return TruncateRunes(ss[0], capRunes)
}

// appendBounded appends item and drops the oldest items until the total fits capRunes (counted
// in bytes, an upper bound on runes).
func appendBounded(items []string, item string, capRunes int) []string {
	items = append(items, item)
	total := 0
	for _, it := range items {
		total += len(it) + 1
	}
	drop := 0
	for total > capRunes && drop < len(items)-1 {
		total -= len(items[drop]) + 1
		drop++
	}
	items = items[drop:]
	if cap(items) > 4*len(items)+8 {
		// Re-slicing keeps the old array alive: copy now and then so memory stays flat.
		items = append(make([]string, 0, 2*len(items)+1), items...)
	}
	return items
}

func capItems(items []string, capRunes int) string {
	var kept []string
	for _, it := range items {
		kept = appendBounded(kept, it, capRunes)
	}
	return strings.Join(kept, " ")
}

// interrupted cuts the newest examiner message down to what the candidate heard before
// barging in: the one being said (of the open turn first), else the newest in the history.
func (cm *contextManager) interrupted(heard string) {
	cut := func(m *spec.Message) {
		if heard == "" {
			m.Content = "[the candidate interrupted before hearing this line]"
		} else {
			m.Content = heard + " [interrupted by the candidate]"
		}
	}
	switch {
	case cm.turn != nil && len(cm.turn.replies) > 0:
		cut(&cm.turn.replies[len(cm.turn.replies)-1])
		return
	case cm.reply != nil:
		cut(cm.reply)
		return
	}
	for i := len(cm.history) - 1; i >= 0; i-- {
		if cm.history[i].Role == "assistant" {
			cut(&cm.history[i])
			return
		}
	}
}

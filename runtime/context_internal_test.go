package runtime

import (
	"fmt"
	"testing"
)

// TestContextBounded: whatever the number of turns in one node, the context holds at most the
// message budget plus a capped summary.
func TestContextBounded(t *testing.T) {
	exam := basicExam(t)
	cm := newContextManager()
	cm.enterNode(exam.Node("plan"), "")
	maxMsgs, maxToks := 0, 0
	for i := range 1000 {
		cm.record(assistant(fmt.Sprintf("Question %d about the servers and the weekend?", i)),
			candidateMessage(fmt.Sprintf("Answer %d: we should test the migration on a copy of the servers first, because nothing has been tested.", i), 0))
		m, tk := cm.size()
		maxMsgs, maxToks = max(maxMsgs, m), max(maxToks, tk)
	}
	if maxMsgs > defaultMaxContextMessages+2 {
		t.Fatalf("history reached %d messages", maxMsgs)
	}
	if maxToks > defaultMaxContextTokens {
		t.Fatalf("context reached %d tokens", maxToks)
	}
	sum := 0
	for _, s := range cm.summary {
		sum += len(s)
	}
	if sum > summaryCapRunes || cap(cm.summary) > 4*len(cm.summary)+8 || cm.compressions == 0 {
		t.Fatalf("summary %d bytes, %d items, cap %d, %d compressions", sum, len(cm.summary), cap(cm.summary), cm.compressions)
	}
	msgs := cm.messages(exam.Node("plan"), nil, nil)
	if len(msgs) > defaultMaxContextMessages+len(exam.Node("plan").LLM.TaskMessages)+3 {
		t.Fatalf("%d messages sent", len(msgs))
	}
}

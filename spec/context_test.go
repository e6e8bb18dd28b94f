package spec

import (
	"strings"
	"testing"
)

// TestSummaryTokens: context.summaryTokens compiles to the exam's summary budget (default
// 2000); a value outside 100..16000 is refused with its position.
func TestSummaryTokens(t *testing.T) {
	for _, tt := range []struct {
		name, context string
		want          int
		err           string
	}{
		{"default", "", DefaultSummaryTokens, ""},
		{"set", "context: {summaryTokens: 500}\n", 500, ""},
		{"too small", "context: {summaryTokens: 10}\n", 0, "summaryTokens 10 is out of range"},
		{"too large", "context: {summaryTokens: 50000}\n", 0, "summaryTokens 50000 is out of range"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `specVersion: "1"
id: minimal
title: Minimal
persona: {id: ex, roleMessage: "You examine."}
evidence:
  - {signalType: sig_a, description: "Does A", levels: [l1]}
nodes:
  - {nodeId: q, kind: assessment, scenario: S, conversationPrompt: "Q?", evidenceSignals: [sig_a], next: bye}
  - {nodeId: bye, kind: end, conversationPrompt: Bye}
` + tt.context
			e, diags, err := Compile("ctx.yaml", []byte(src))
			if tt.err != "" {
				if err == nil || !strings.Contains(diags.String(), tt.err) || !strings.Contains(diags.String(), "ctx.yaml:10:") {
					t.Fatalf("want %q at its line, got %v\n%s", tt.err, err, diags)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Context.SummaryTokens != tt.want || e.Context.SummaryTokensOrDefault() != tt.want {
				t.Fatalf("summaryTokens %d, want %d", e.Context.SummaryTokens, tt.want)
			}
		})
	}
	if got := (ResolvedContext{}).SummaryTokensOrDefault(); got != DefaultSummaryTokens {
		t.Fatalf("an exam compiled before summaryTokens reads %d", got)
	}
}

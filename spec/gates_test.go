package spec

import (
	"strings"
	"testing"
)

// TestBeatHoldMigration: beatHold took over firstSpeak's old job (holding beats back), so a
// spec written before it keeps its firstSpeak as the hold; a spec that sets beatHold gets it.
func TestBeatHoldMigration(t *testing.T) {
	for _, tt := range []struct {
		name, gates      string
		firstSpeak, hold float64
	}{
		{"defaults", "", DefaultFirstSpeak, DefaultBeatHold},
		{"old spec: firstSpeak alone", "  gates: {firstSpeak: 3}\n", 3, 3},
		{"both", "  gates: {firstSpeak: 0.5, beatHold: 4}\n", 0.5, 4},
		{"beatHold alone", "  gates: {beatHold: 6}\n", DefaultFirstSpeak, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `specVersion: "1"
id: minimal
title: Minimal
persona: {id: ex, roleMessage: "You examine."}
policies:
  confirmFinish: true
` + tt.gates + `evidence:
  - {signalType: sig_a, description: "Does A", levels: [l1]}
nodes:
  - {nodeId: q, kind: assessment, scenario: S, conversationPrompt: "Q?", evidenceSignals: [sig_a], next: bye}
  - {nodeId: bye, kind: end, conversationPrompt: Bye}
`
			e, _ := mustCompile(t, "min.yaml", []byte(src))
			if g := e.Policies.Gates; g.FirstSpeak != tt.firstSpeak || g.BeatHold != tt.hold {
				t.Fatalf("gates %+v, want firstSpeak %g beatHold %g", g, tt.firstSpeak, tt.hold)
			}
		})
	}
	_, diags, err := Compile("neg.yaml", []byte(`specVersion: "1"
id: minimal
title: Minimal
persona: {id: ex, roleMessage: "You examine."}
policies:
  gates: {beatHold: -1}
evidence:
  - {signalType: sig_a, description: "Does A", levels: [l1]}
nodes:
  - {nodeId: q, kind: assessment, scenario: S, conversationPrompt: "Q?", evidenceSignals: [sig_a], next: bye}
  - {nodeId: bye, kind: end, conversationPrompt: Bye}
`))
	if err == nil || !strings.Contains(diags.String(), "beatHold") {
		t.Fatalf("a negative beatHold: %v\n%s", err, diags)
	}
}

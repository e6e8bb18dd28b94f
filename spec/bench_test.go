package spec

import (
	"fmt"
	"strings"
	"testing"
)

// generatedExam writes a valid exam with n nodes (the last one an end node) and 50 signals.
func generatedExam(n int) []byte {
	var b strings.Builder
	b.WriteString("specVersion: \"1\"\nid: generated\ntitle: Generated\ntotalTimeBudgetSec: 100000\n")
	b.WriteString("persona: {id: ex, roleMessage: \"You are a neutral examiner.\"}\n")
	b.WriteString("personas:\n  - {id: alt, roleMessage: \"You are a client.\", voice: alloy, ttsSpeed: 1.1}\n")
	b.WriteString("policies: {skipAllowed: true, gates: {userIdle: 2}}\nevidence:\n")
	const signals = 50
	for i := 0; i < signals; i++ {
		fmt.Fprintf(&b, "  - signalType: sig_%d\n    description: \"Explains aspect %d of the situation\"\n    levels: [description, analysis, evaluation]\n    cues: [\"cue %d\", \"other %d\"]\n", i, i, i, i)
	}
	b.WriteString("nodes:\n")
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "  - nodeId: node-%d\n    kind: assessment\n    persona: alt\n", i)
		fmt.Fprintf(&b, "    scenario: \"Scenario %d: a situation with several facts to weigh.\"\n", i)
		fmt.Fprintf(&b, "    scenarioDomain: [topic%d, budget, staff]\n    scenarioIntro: \"Part %d: a situation with facts to weigh.\"\n", i, i)
		fmt.Fprintf(&b, "    conversationPrompt: \"What would you do in case %d?\"\n", i)
		s1, s2 := i%signals, (i+1)%signals
		fmt.Fprintf(&b, "    evidenceSignals: [sig_%d, sig_%d]\n    transversalSkills: [sig_%d]\n", s1, s2, (i+2)%signals)
		b.WriteString("    maxFollowUps: 2\n    timeBudgetSec: 120\n    completionPolicy: {requiredEvidenceCount: 2}\n")
		b.WriteString("    allowedActions: [ask_follow_up]\n    forbiddenActions: [give_hints]\n")
		fmt.Fprintf(&b, "    followUpProbes:\n      sig_%d: [\"Can you say more?\"]\n", s1)
		fmt.Fprintf(&b, "    transitions:\n      - {on: distress, to: node-%d}\n", n-1)
		fmt.Fprintf(&b, "    next: node-%d\n", i+1)
	}
	fmt.Fprintf(&b, "  - {nodeId: node-%d, kind: end, conversationPrompt: \"Thank you.\"}\n", n-1)
	b.WriteString("beats:\n  - {atSec: 60, scope: node-0, message: \"Half way.\"}\n  - {atSec: 90000, scope: exam, message: \"Wrap up.\", wrapup: true}\n")
	return []byte(b.String())
}

func TestGeneratedExamCompiles(t *testing.T) {
	e, diags, err := Compile("gen.yaml", generatedExam(500))
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v\n%s", err, diags)
	}
	if len(e.Nodes) != 500 {
		t.Fatalf("%d nodes", len(e.Nodes))
	}
}

func BenchmarkCompile500(b *testing.B) {
	src := generatedExam(500)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Compile("gen.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckExample(b *testing.B) {
	src := exampleSrc(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Compile("hotel-breakfast.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExportPipecat500(b *testing.B) {
	e, _ := mustCompile(b, "gen.yaml", generatedExam(500))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ExportPipecatFlows(e); err != nil {
			b.Fatal(err)
		}
	}
}

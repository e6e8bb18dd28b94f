package spec

import (
	"strings"
	"testing"
)

// variantExam is a small exam whose assessment node offers variants; body is the node's
// variant part.
func variantExam(body string) []byte {
	return []byte(`specVersion: "1"
id: variants
title: Variants
persona: {id: examiner, roleMessage: "You examine."}
evidence:
  - {signalType: proposes_options, description: "Puts forward options", levels: [description, analysis], cues: [option]}
  - {signalType: considers_budget, description: "Reasons about costs", levels: [description, analysis], cues: [cost]}
nodes:
  - nodeId: case
    kind: assessment
    scenario: "A hotel's breakfast loses money."
    evidenceSignals: [proposes_options, considers_budget]
    followUpProbes: {proposes_options: ["Is there another way?"]}
` + body + `
    next: end
  - {nodeId: end, kind: end, conversationPrompt: "Thank you."}
`)
}

func TestVariantsCompile(t *testing.T) {
	e, diags := mustCompile(t, "v.yaml", variantExam(`    draw: balanced
    variants:
      - {id: buffet, conversationPrompt: "The buffet queues are long. What would you do?"}
      - id: rota
        scenario: "A conference needs lunch for 200."
        conversationPrompt: "How would you staff the lunches?"
        followUpProbes: {considers_budget: ["What would the overtime cost?"]}
        cues: {considers_budget: [overtime]}`))
	if len(diags) != 0 {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	n := e.Node("case")
	if got := strings.Join(n.VariantIDs(), ","); got != "buffet,rota" || n.Controller.Draw != DrawBalanced {
		t.Fatalf("variants %s draw %s", got, n.Controller.Draw)
	}
	rota, ok := n.WithVariant("rota")
	if !ok {
		t.Fatal("no rota variant")
	}
	task := rota.LLM.TaskMessages[0].Content
	for _, want := range []string{"SCENARIO: A conference needs lunch for 200.", "OPENING: How would you staff the lunches?", "considers_budget: What would the overtime cost?"} {
		if !strings.Contains(task, want) {
			t.Errorf("rota's task message lacks %q:\n%s", want, task)
		}
	}
	for _, never := range []string{"breakfast", "buffet", "another way"} {
		if strings.Contains(strings.ToLower(task), never) {
			t.Errorf("rota's task message holds another question's %q:\n%s", never, task)
		}
	}
	if rota.Variant != "rota" || rota.Controller.ConversationPrompt != "How would you staff the lunches?" {
		t.Errorf("rota view: variant %q prompt %q", rota.Variant, rota.Controller.ConversationPrompt)
	}
	if got := strings.Join(e.CuesFor(rota, "considers_budget"), ","); got != "cost,overtime" {
		t.Errorf("rota cues %s", got)
	}
	buffet, _ := n.WithVariant("buffet")
	if buffet.Controller.Scenario != "A hotel's breakfast loses money." || len(buffet.Controller.FollowUpProbes["proposes_options"]) != 1 {
		t.Errorf("buffet does not share the node's scenario and probes: %+v", buffet.Controller)
	}
	if n.Variant != "" || n.Controller.ConversationPrompt != "" {
		t.Errorf("WithVariant changed the compiled node: %+v", n)
	}
	if _, ok := n.WithVariant("nope"); ok {
		t.Error("an unknown variant was found")
	}
	if n.FixedVariant() != "buffet" {
		t.Errorf("fixed draw takes %q, want the first", n.FixedVariant())
	}
}

// TestVariantDiagnostics: every problem of a node's variants in one run, each at its position.
func TestVariantDiagnostics(t *testing.T) {
	_, diags, err := Compile("v.yaml", variantExam(`    draw: lottery
    fixedVariant: rota
    variants:
      - {id: a, conversationPrompt: "What are your proposes options here?"}
      - {id: a, scenarioIntro: "Hello."}
      - id: c
        conversationPrompt: "And the costs?"
        followUpProbes: {plans_staffing: ["Who works?"]}
        cues: {considers_budget: []}`))
	if err == nil {
		t.Fatal("compiled")
	}
	want := []string{
		`v.yaml:14:11: error: node "case": unknown draw "lottery" (known draws: balanced, fixed, random)`,
		`v.yaml:15:19: warning: node "case": fixedVariant is only read by draw: fixed (set draw: fixed)`,
		`v.yaml:17:37: warning: node "case" variant "a": the candidate would hear the signal id "proposes_options"`,
		`v.yaml:18:9: error: node "case" variant "a": no conversationPrompt`,
		`v.yaml:18:14: error: duplicate variant id "a" (first defined at line 17)`,
		`v.yaml:21:26: error: node "case" variant "c": followUpProbes key "plans_staffing" is not a signal of this node`,
		`v.yaml:22:34: error: node "case" variant "c": cues.considers_budget is empty`,
	}
	got := diags.String()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

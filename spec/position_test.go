package spec

import "testing"

func TestPosition(t *testing.T) {
	src := []byte(`specVersion: "1"
id: p
title: P
persona: {id: ex, roleMessage: "You examine."}
evidence:
  - signalType: a
    description: "Does A"
    levels: [one, two]
nodes:
  - nodeId: q
    kind: assessment
    scenario: S
    conversationPrompt: Q?
    evidenceSignals: [a]
    transitions:
      - on: distress
        to: e
    next: e
  - nodeId: e
    kind: end
`)
	s, diags := Load("p.yaml", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		path      string
		line, col int
		ok        bool
	}{
		{"nodes[0].nodeId", 10, 13, true},
		{"nodes[0].transitions[0].on", 16, 13, true},
		{"nodes[0].next", 18, 11, true},
		{"nodes[0].evidenceSignals[0]", 14, 23, true},
		{"evidence[0].levels[1]", 8, 19, true},
		{"nodes[1].next", 0, 0, false},
	}
	for _, tc := range tests {
		p, ok := s.Position(tc.path)
		if ok != tc.ok || (ok && (p.Line != tc.line || p.Col != tc.col || p.File != "p.yaml")) {
			t.Errorf("Position(%q) = %v, %v; want p.yaml:%d:%d, %v", tc.path, p, ok, tc.line, tc.col, tc.ok)
		}
	}
	var built *Spec
	if _, ok := built.Position("nodes[0]"); ok {
		t.Error("a nil spec has positions")
	}
	if _, ok := (&Spec{}).Position("nodes[0]"); ok {
		t.Error("a spec built in code has positions")
	}
}

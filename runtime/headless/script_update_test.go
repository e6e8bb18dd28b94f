package headless

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestUpdateExpectations: only the expect block changes; comments outside it, the turns and a
// block that follows stay; a script without expect gets one; named counts are kept.
func TestUpdateExpectations(t *testing.T) {
	r := &Result{State: runtime.StateCompleted, Visits: []string{"a", "b"}, Evidence: map[string]int{"x": 1},
		Guardrails: map[string]int{}, Commands: map[string]int{"repeat": 1}, Events: map[string]int{"spoken": 7},
		Turns: []TurnResult{{Decision: "follow_up (probe)"}, {Decision: "transition (evidence_sufficient) → b"}}}
	newBlock := `expect:
  completed: true
  state: completed
  visits: [a, b]
  evidence: {x: 1}
  guardrails: {persona_break: 0}
  commands: {repeat: 1}
  events: {spoken: 7}
  decisions:
    - "follow_up (probe)"
    - "transition (evidence_sufficient) → b"
`
	tests := []struct {
		name, src, want string
	}{
		{"replaces the block, keeps what surrounds it",
			"# header\nspec: s.yaml\nturns:\n  - say: \"hi\"   # a comment\nexpect:\n  # inner comment\n  completed: false\n  guardrails: {persona_break: 2}\n  events: {spoken: 1}\n\n# trailing note\n",
			"# header\nspec: s.yaml\nturns:\n  - say: \"hi\"   # a comment\n" + newBlock + "\n# trailing note\n"},
		{"expect before turns",
			"spec: s.yaml\nexpect:\n  completed: false\n  guardrails: {persona_break: 0}\n  events: {spoken: 0}\nturns:\n  - say: hi\n",
			"spec: s.yaml\n" + newBlock + "turns:\n  - say: hi\n"},
		{"no expect block yet",
			"spec: s.yaml\nturns:\n  - say: hi",
			"spec: s.yaml\nturns:\n  - say: hi\n" + strings.Replace(strings.Replace(newBlock, "  guardrails: {persona_break: 0}\n", "  guardrails: {}\n", 1), "  events: {spoken: 7}\n", "", 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old, err := ParseScript("s.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			got, err := UpdateExpectations("s.yaml", []byte(tc.src), old.Expect, r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

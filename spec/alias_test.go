package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestAnchorsAndAliases(t *testing.T) {
	src := strings.Replace(baseSpec, `persona: {id: ex, roleMessage: "You examine."}`,
		"persona: {id: ex, roleMessage: &role \"You examine.\"}\npersonas:\n  - {id: other, roleMessage: *role}", 1)
	e, diags, err := Compile("t.yaml", []byte(src))
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v\n%s", err, diags)
	}
	if p := e.Persona("other"); p == nil || p.RoleMessage != "You examine." {
		t.Fatalf("alias not followed: %+v", e.Personas)
	}

	merge := strings.Replace(baseSpec, "    next: bye\n", "    next: bye\n    <<: {maxFollowUps: 2}\n", 1)
	_, diags, err = Compile("t.yaml", []byte(merge))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(diags.String(), "t.yaml:15:5: error: nodes[0]: merge keys (<<) are not supported") {
		t.Fatalf("merge key: %v\n%s", err, diags)
	}
}

// TestAliasExpansionBounded: a small file whose aliases expand to millions of values is
// refused with a positioned error instead of being decoded.
func TestAliasExpansionBounded(t *testing.T) {
	// The mechanism, not the size: a lower bound keeps the test quick under the race detector.
	defer func(n int) { maxValues = n }(maxValues)
	maxValues = 50_000
	probes := "&many [" + strings.Repeat(`"Why?", `, 500) + `"Why?"]`
	src := strings.Replace(baseSpec, "nodes:\n", "nodes:\n  - &n {nodeId: a, kind: assessment, scenario: S, conversationPrompt: Q, evidenceSignals: [sig_a], next: bye, followUpProbes: {sig_a: "+probes+"}}\n"+strings.Repeat("  - *n\n", 200), 1)
	_, diags, err := Compile("t.yaml", []byte(src))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(diags.String(), "document expands to more than 50000 values") {
		t.Fatalf("%v\n%.2000s", err, diags)
	}
}

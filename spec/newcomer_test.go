package spec

import (
	"os"
	"strings"
	"testing"
)

// minimalExam is the minimal exam of docs/exam-format.md with the plan node's texts given.
func minimalExam(signal, ref, node string) string {
	return `specVersion: "1"
id: servers-move
title: "Planning a data-centre move"
persona:
  id: examiner
  roleMessage: "You are a calm, neutral examiner. Ask one question at a time."
evidence:
  - signalType: ` + signal + `
    description: "Identifies a specific risk in the plan"
    levels: [description, analysis, evaluation]
    cues: ["risk", "danger"]
nodes:
  - nodeId: plan
    kind: assessment
    evidenceSignals: [` + ref + `]
    next: bye
` + node + `
  - nodeId: bye
    kind: end
    conversationPrompt: "Thank you, that is the end of the exam."
`
}

// TestNewcomerMistakes: each mistake an author new to the format makes gives one diagnostic
// that names the cause and says what to write instead.
func TestNewcomerMistakes(t *testing.T) {
	const texts = `    scenario: "A team moves its servers over one weekend. Nothing has been tested."
    scenarioIntro: "A team moves its servers over one weekend. Nothing has been tested."
    conversationPrompt: "What do you think of this plan?"`
	cases := []struct {
		name string
		src  string
		n    int      // diagnostics: one per mistake
		want []string // substrings of their messages and hints
	}{
		{"hyphenated signal id, referenced as it should be",
			minimalExam("names-risk", "names_risk", texts),
			2, []string{`invalid signalType "names-risk" (use [a-z0-9_]+: write names_risk)`,
				`undefined signal "names_risk" (the evidence list writes it "names-risk", which is not a valid id: write names_risk there too)`}},
		{"tab in the indentation",
			strings.Replace(minimalExam("names_risk", "names_risk", texts), "\n  id: examiner", "\n\tid: examiner", 1),
			1, []string{"a tab in the indentation (YAML indents with spaces, never tabs: replace each tab with spaces)"}},
		{"variant written as a string",
			minimalExam("names_risk", "names_risk", texts+"\n    variants:\n      - weekend\n      - {id: night, scenarioIntro: \"The move happens overnight.\"}"),
			1, []string{`variants[0]: expected a mapping, got string "weekend" (write it as a mapping, one field a line: id: weekend)`}},
		{"the candidate never hears the scenario",
			minimalExam("names_risk", "names_risk", strings.Replace(texts, "    scenarioIntro: \"A team moves its servers over one weekend. Nothing has been tested.\"\n", "", 1)),
			1, []string{`the candidate never hears the scenario`, `say the situation in scenarioIntro`}},
		{"an intro that names the situation without telling it",
			minimalExam("names_risk", "names_risk", strings.Replace(texts, "scenarioIntro: \"A team moves its servers over one weekend. Nothing has been tested.\"", "scenarioIntro: \"Here is the situation.\"", 1)),
			1, []string{`the candidate never hears the scenario`}},
		{"a variant's question telling its own case", minimalExam("names_risk", "names_risk", texts+
			"\n    variants:\n      - {id: weekend}\n      - {id: night, conversationPrompt: \"The move now happens overnight with no backup. What do you think?\"}"),
			0, nil},
		{"the scenario said in the question", minimalExam("names_risk", "names_risk",
			"    scenario: \"A team moves its servers over one weekend.\"\n    conversationPrompt: \"What do you think of moving the servers in a weekend?\""),
			0, nil},
		{"a script without spaces is not compared", minimalExam("names_risk", "names_risk",
			"    scenario: \"チームは週末にサーバーを移します。\"\n    conversationPrompt: \"この計画をどう思いますか？\""),
			0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, _ := Compile("t.yaml", []byte(tc.src))
			if len(diags) != tc.n {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(diags), tc.n, diags)
			}
			all := diags.String()
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, all)
				}
			}
			for _, d := range diags {
				if d.Hint == "" {
					t.Errorf("no hint: what to do is not said: %s", d)
				}
			}
		})
	}
}

// TestDocsMinimalExamChecksClean: the minimal exam of docs/exam-format.md, which authors copy,
// compiles with no diagnostic at all (no warning either: it once asked about "this plan"
// without the candidate ever hearing the plan).
func TestDocsMinimalExamChecksClean(t *testing.T) {
	doc, err := os.ReadFile("../docs/exam-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## A minimal exam\n\n```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/exam-format.md has no minimal exam block")
	}
	e, diags, err := Compile("servers-move.yaml", []byte(block))
	if err != nil || e == nil || len(diags) != 0 {
		t.Fatalf("the docs' minimal exam does not check clean (err %v):\n%s", err, diags)
	}
}

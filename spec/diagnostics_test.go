package spec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// baseSpec is valid; each case edits it. Line numbers matter to the cases below.
const baseSpec = `specVersion: "1"
id: t
title: T
persona: {id: ex, roleMessage: "You examine."}
evidence:
  - {signalType: sig_a, description: "Does A", levels: [l1]}
  - {signalType: sig_b, description: "Does B", levels: [l1, l2]}
nodes:
  - nodeId: start
    kind: assessment
    scenario: S
    conversationPrompt: Q?
    evidenceSignals: [sig_a]
    next: bye
  - nodeId: bye
    kind: end
    conversationPrompt: Bye
`

func TestBaseSpecIsClean(t *testing.T) {
	_, diags, err := Compile("t.yaml", []byte(baseSpec))
	if err != nil || len(diags) != 0 {
		t.Fatalf("base spec: %v\n%s", err, diags)
	}
}

func render(d Diagnostic) string {
	s := fmt.Sprintf("%d:%d %s: %s", d.Pos.Line, d.Pos.Col, d.Severity, d.Message)
	if d.Hint != "" {
		s += " (" + d.Hint + ")"
	}
	return s
}

func TestDiagnostics(t *testing.T) {
	cases := []struct {
		name  string
		edits []string // old, new pairs applied to baseSpec in order
		want  []string // every diagnostic, in order, as a prefix of "line:col severity: message (hint)"
	}{
		{"unknown top-level field", []string{"title: T\n", "title: T\ntitel: X\n"},
			[]string{"4:1 error: unknown field titel in exam (did you mean title?)"}},
		{"unknown node field", []string{"    next: bye\n", "    next: bye\n    maxFollowUp: 2\n"},
			[]string{"15:5 error: unknown field maxFollowUp in nodes[0] (did you mean maxFollowUps?)"}},
		{"unknown field without a near match", []string{"    next: bye\n", "    next: bye\n    colour: red\n"},
			[]string{"15:5 error: unknown field colour in nodes[0] (known fields: allowedActions,"}},
		{"undefined evidence signal", []string{"[sig_a]", "[sig_a, sig_c]"},
			[]string{`13:30 error: node "start": evidenceSignals names undefined signal "sig_c" (did you mean sig_a?)`}},
		{"undefined transversal skill", []string{"    next: bye\n", "    next: bye\n    transversalSkills: [talks]\n"},
			[]string{`15:25 error: node "start": transversalSkills names undefined signal "talks" (known signals: sig_a, sig_b)`}},
		{"next names unknown node", []string{"next: bye", "next: byee"},
			[]string{`14:11 error: node "start": next names unknown node "byee" (did you mean bye?)`,
				`15:13 error: node "bye" is unreachable from the entry node "start"`}},
		{"transition to unknown node", []string{"    next: bye\n", "    next: bye\n    transitions:\n      - {on: distress, to: nowhere}\n"},
			[]string{`16:28 error: node "start": transition to unknown node "nowhere"`}},
		{"unknown transition reason", []string{"    next: bye\n", "    next: bye\n    transitions:\n      - {on: distres, to: bye}\n"},
			[]string{`16:14 error: node "start": unknown transition reason "distres" (did you mean distress?)`}},
		{"duplicate transition reason", []string{"    next: bye\n", "    next: bye\n    transitions:\n      - {on: skipped, to: bye}\n      - {on: skipped, to: bye}\n"},
			[]string{`17:14 error: node "start": duplicate transition for skipped (first at line 16)`,
				`16:14 warning: node "start": a skipped transition is never taken`}},
		{"assessment without conversationPrompt", []string{"    conversationPrompt: Q?\n", ""},
			[]string{`9:5 error: missing required field conversationPrompt in assessment node "start"`}},
		{"assessment without scenario", []string{"    scenario: S\n", ""},
			[]string{`9:5 error: missing required field scenario in assessment node "start"`}},
		{"assessment without evidenceSignals", []string{"    evidenceSignals: [sig_a]\n", ""},
			[]string{`9:5 error: assessment node "start" needs evidenceSignals`}},
		{"empty conversationPrompt", []string{"conversationPrompt: Q?", `conversationPrompt: " "`},
			[]string{`12:25 error: conversationPrompt in assessment node "start" must not be empty`}},
		{"beat without atSec", []string{"nodes:\n", "beats:\n  - {message: m, scope: exam}\nnodes:\n"},
			[]string{`9:5 error: missing required field atSec of beat (write atSec: 0 to fire at the start)`}},
		{"beat with null atSec", []string{"nodes:\n", "beats:\n  - {atSec: ~, message: m, scope: exam}\nnodes:\n"},
			[]string{`9:13 error: atSec of beat must be a number of seconds, not null (write atSec: 0 to fire at the start)`}},
		{"empty silence prompt", []string{"nodes:\n", "policies:\n  silence: {prompt: \"\"}\nnodes:\n"},
			[]string{`9:21 error: silence prompt must not be empty (leave the field out to use the default prompt)`}},
		{"null list item", []string{"    next: bye\n", "    next: bye\n    scenarioDomain: [rooms, ~]\n"},
			[]string{`15:29 error: nodes[0].scenarioDomain[1]: a list item must not be null (remove the item or give it a value)`}},
		{"action allowed and forbidden", []string{"    next: bye\n", "    next: bye\n    allowedActions: [paraphrase, give_hints]\n    forbiddenActions: [give_hints]\n"},
			[]string{`16:24 error: node "start": action "give_hints" is both allowed and forbidden (also in allowedActions at line 15)`}},
		{"duplicate node id", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n  - {nodeId: bye, kind: end, conversationPrompt: x}\n"},
			[]string{`18:14 error: duplicate nodeId "bye" (first defined at line 15)`}},
		{"duplicate signal type", []string{"signalType: sig_b", "signalType: sig_a"},
			[]string{`7:18 error: duplicate signalType "sig_a" (first defined at line 6)`}},
		{"duplicate persona id", []string{"evidence:\n", "personas:\n  - {id: ex, roleMessage: Other}\nevidence:\n"},
			[]string{`6:10 error: duplicate persona id "ex" (first defined at line 4)`}},
		{"unknown filter", []string{"nodes:\n", "outputValidation:\n  filters:\n    - {name: lenght, maxChars: 200}\nnodes:\n"},
			[]string{`10:14 error: unknown filter "lenght" (did you mean length?)`}},
		{"filter field for another filter", []string{"nodes:\n", "outputValidation:\n  filters:\n    - {name: rubric_leak, maxChars: 200, action: shout}\n" + "nodes:\n"},
			[]string{`10:27 error: filter rubric_leak takes no maxChars`, `10:50 error: filter rubric_leak: unknown action "shout" (known actions for rubric_leak: intercept, replace)`}},
		{"unreachable node", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n  - {nodeId: lost, kind: end, conversationPrompt: x}\n"},
			[]string{`18:14 error: node "lost" is unreachable from the entry node "start"`}},
		{"cycle without an end", []string{"    next: bye\n", "    next: loop\n  - {nodeId: loop, kind: scaffolding, conversationPrompt: x, next: start}\n"},
			[]string{`9:13 error: cycle start → loop → start never reaches an end node`,
				`16:13 error: node "bye" is unreachable from the entry node "start"`}},
		{"self loop without an end", []string{"    next: bye\n", "    next: start\n    transitions: [{on: admin_advance, to: bye}]\n"},
			[]string{}},
		{"no end node", []string{"    kind: end\n", "    kind: scaffolding\n    next: start\n"},
			[]string{`9:3 error: the exam has no end node`}},
		{"non-end node without next", []string{"    next: bye\n", ""},
			[]string{`9:13 error: assessment node "start" has no next: only end nodes may omit it`, `14:13 error: node "bye" is unreachable`}},
		{"end node with next", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n    next: start\n"},
			[]string{`18:11 error: end node "bye" must not have next`}},
		{"scaffolding without conversationPrompt", []string{"nodes:\n", "nodes:\n  - {nodeId: hello, kind: scaffolding, next: start}\n"},
			[]string{`9:5 warning: scaffolding node "hello" has no conversationPrompt`}},
		{"end without conversationPrompt", []string{"    conversationPrompt: Bye\n", ""},
			[]string{`15:5 warning: end node "bye" has no conversationPrompt`}},
		{"grading descriptor", []string{`"Does B"`, `"Gives a good answer"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("good")`}},
		{"grading descriptor: marks", []string{`"Does B"`, `"Earns Marks for analysis"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("Marks")`}},
		{"grading descriptor: excellent", []string{`"Does B"`, `"Gives an excellent plan"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("excellent")`}},
		{"grading descriptor: weak", []string{`"Does B"`, `"Spots a weak argument"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("weak")`}},
		{"grading descriptor: level", []string{`"Does B"`, `"Reasons at a high level"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("level")`}},
		{"grading descriptor: grade", []string{`"Does B"`, `"Would grade well"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("grade")`}},
		{"grading descriptor: score", []string{`"Does B"`, `"Shows a high score, in effect"`},
			[]string{`7:38 warning: description of "sig_b" reads like a grading descriptor ("score")`}},
		{"unknown policy field", []string{"evidence:\n", "policies: {skipAlowed: true}\nevidence:\n"},
			[]string{"5:12 error: unknown field skipAlowed in policies (did you mean skipAllowed?)"}},
		{"unknown gate", []string{"evidence:\n", "policies: {gates: {userIdel: 2}}\nevidence:\n"},
			[]string{"5:20 error: unknown field userIdel in policies.gates (did you mean userIdle?)"}},
		{"levelCues key not a level", []string{"levels: [l1, l2]}", "levels: [l1, l2], levelCues: {l3: [why]}}"},
			[]string{"7:78 error: signal \"sig_b\": levelCues key \"l3\" is not one of its levels (did you mean l1?)"}},
		{"levelCues list empty", []string{"levels: [l1, l2]}", "levels: [l1, l2], levelCues: {l2: []}}"},
			[]string{"7:82 error: signal \"sig_b\": levelCues.l2 is empty"}},
		{"unknown evidence field", []string{"levels: [l1, l2]}", "levels: [l1, l2], cue: [x]}"},
			[]string{"7:66 error: unknown field cue in evidence[1] (did you mean cues?)"}},
		{"unknown persona field", []string{`roleMessage: "You examine."}`, `roleMessage: "You examine.", voise: alloy}`},
			[]string{"4:48 error: unknown field voise in persona (did you mean voice?)"}},
		{"unknown transition field", []string{"    next: bye\n", "    next: bye\n    transitions:\n      - {on: distress, too: bye}\n"},
			[]string{`16:9 error: node "start": transition is missing to`, "16:24 error: unknown field too in nodes[0].transitions[0] (did you mean to?)"}},
		{"unknown beat field", []string{"nodes:\n", "beats:\n  - {atSec: 5, scope: exam, mesage: m}\nnodes:\n"},
			[]string{"9:5 error: missing required field message of beat", "9:29 error: unknown field mesage in beats[0] (did you mean message?)"}},
		{"unknown completionPolicy field", []string{"    next: bye\n", "    next: bye\n    completionPolicy: {requiredEvidence: 1}\n"},
			[]string{"15:24 error: unknown field requiredEvidence in nodes[0].completionPolicy (did you mean requiredEvidenceCount?)"}},
		{"wrong type: int", []string{"    next: bye\n", "    next: bye\n    maxFollowUps: three\n"},
			[]string{`15:19 error: nodes[0].maxFollowUps: expected an integer, got string "three"`}},
		{"wrong type: string", []string{"title: T", "title: 42"},
			[]string{`3:8 error: title: expected a string, got integer 42 (quote it: "42")`}},
		{"wrong type: list", []string{"[sig_a]", "sig_a"},
			[]string{`13:22 error: nodes[0].evidenceSignals: expected a list, got string "sig_a"`}},
		{"unknown kind", []string{"kind: assessment", "kind: asessment"},
			[]string{`10:11 error: node "start": unknown kind "asessment" (did you mean assessment?)`}},
		{"unknown context strategy", []string{"    next: bye\n", "    next: bye\n    contextStrategy: restart\n"},
			[]string{`15:22 error: node "start": unknown contextStrategy "restart" (known strategies: append, reset, reset_with_summary)`}},
		{"signal type pattern", []string{"signalType: sig_b", "signalType: Sig-B"},
			[]string{`7:18 error: invalid signalType "Sig-B" (use [a-z0-9_]+: write sig_b)`}},
		{"exam id pattern", []string{"id: t", "id: My Exam"},
			[]string{`2:5 error: invalid exam id "My Exam"`}},
		{"spec version", []string{`specVersion: "1"`, `specVersion: "2"`},
			[]string{`1:14 error: unsupported specVersion "2"`}},
		{"missing title", []string{"title: T\n", ""},
			[]string{`1:1 error: missing required field title`}},
		{"sttMinConfidence out of range", []string{"evidence:\n", "policies: {sttMinConfidence: 1.2, maxClarifications: -1}\nevidence:\n"},
			[]string{`5:30 error: sttMinConfidence 1.2 is out of range (allowed: 0 to 1)`, `5:54 error: maxClarifications must not be negative, got -1`}},
		{"negative budget", []string{"    next: bye\n", "    next: bye\n    timeBudgetSec: -5\n"},
			[]string{`15:20 error: node "start": timeBudgetSec must not be negative, got -5`}},
		{"probe key not a node signal", []string{"    next: bye\n", "    next: bye\n    followUpProbes:\n      sig_b: [\"Why?\"]\n"},
			[]string{`16:7 error: node "start": followUpProbes key "sig_b" is not a signal of this node (did you mean sig_a?)`}},
		{"unknown persona", []string{"    kind: assessment\n", "    kind: assessment\n    persona: boss\n"},
			[]string{`11:14 error: node "start": unknown persona "boss" (known personas: ex)`}},
		{"required evidence can never be met", []string{"    next: bye\n", "    next: bye\n    completionPolicy: {requiredEvidenceCount: 2}\n"},
			[]string{`15:47 error: node "start": requiredEvidenceCount 2 can never be met (the node listens for 1 distinct signals)`}},
		{"beat scope", []string{"nodes:\n", "beats:\n  - {atSec: 5, scope: middle, message: m}\nnodes:\n"},
			[]string{`9:23 error: beat scope "middle" is neither exam nor a node`}},
		{"wrapup not on last exam beat", []string{"nodes:\n", "beats:\n  - {atSec: 50, scope: exam, message: m, wrapup: true}\n  - {atSec: 60, scope: exam, message: n}\nnodes:\n"},
			[]string{`9:50 error: only the last exam beat may have wrapup (the last exam beat is at 60s)`}},
		{"wrapup on node beat", []string{"nodes:\n", "beats:\n  - {atSec: 5, scope: start, message: m, wrapup: true}\nnodes:\n"},
			[]string{`9:50 error: only an exam-scope beat may have wrapup`}},
		{"reserved node id", []string{"nodeId: bye", "nodeId: exam", "next: bye", "next: exam"},
			[]string{`15:13 error: nodeId "exam" is reserved`}},
		{"duplicate key", []string{"title: T\n", "title: T\ntitle: U\n"},
			[]string{`4:1 error: duplicate field title in exam (first at line 3)`}},
		{"duplicate key in a node, with other problems still reported", []string{"    next: bye\n", "    next: bye\n    kind: end\n    colour: red\n"},
			[]string{`15:5 error: duplicate field kind in nodes[0] (first at line 10)`, `16:5 error: unknown field colour in nodes[0]`}},
		{"duplicate probe key", []string{"    next: bye\n", "    next: bye\n    followUpProbes:\n      sig_a: [\"Why?\"]\n      sig_a: [\"How?\"]\n"},
			[]string{`17:7 error: duplicate key sig_a in nodes[0].followUpProbes (first at line 16)`}},
		{"two documents", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n---\nid: other\n"},
			[]string{`19:1 error: more than one YAML document: an exam spec is one document`}},
		{"unknown alias", []string{"title: T", "title: *nothing"},
			[]string{`3:8 error: unknown alias *nothing`}},
		{"tab indentation", []string{"    next: bye\n", "\tnext: bye\n"},
			[]string{`14:1 error: syntax error:`}},
		{"syntax error", []string{"    next: bye\n", "    next: [bye\n"},
			[]string{`15:3 error: syntax error: ',' or ']' must be specified`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := baseSpec
			for i := 0; i+1 < len(tc.edits); i += 2 {
				if !strings.Contains(src, tc.edits[i]) {
					t.Fatalf("edit %q does not apply", tc.edits[i])
				}
				src = strings.Replace(src, tc.edits[i], tc.edits[i+1], 1)
			}
			e, diags, err := Compile("t.yaml", []byte(src))
			var got []string
			for _, d := range diags {
				got = append(got, render(d))
				if d.Pos.File != "t.yaml" || d.Pos.Line < 1 || d.Pos.Col < 1 {
					t.Errorf("unpositioned diagnostic %+v", d)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s\nsource:\n%s", len(got), len(tc.want), strings.Join(got, "\n"), src)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					if strings.HasPrefix(g, w) {
						found = true
					}
				}
				if !found {
					t.Errorf("missing %q in:\n%s", w, strings.Join(got, "\n"))
				}
			}
			if diags.HasErrors() {
				if err == nil || !errors.Is(err, ErrInvalid) || e != nil {
					t.Errorf("errors but err=%v exam=%v", err, e != nil)
				}
			} else if err != nil || e == nil {
				t.Errorf("warnings only but err=%v", err)
			}
		})
	}
}

func TestManyProblemsAtOnce(t *testing.T) {
	_, diags, err := CompileFile("testdata/invalid/many-problems.yaml")
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	want := []string{"unknown field voise", "unknown field maxClarification", "sttMinConfidence 1.5", "invalid signalType",
		"grading descriptor", "duplicate level", "unknown kind", "cycle middle → loop → middle", "undefined signal \"nope\"",
		"maxFollowUps must not be negative", "both allowed and forbidden", "followUpProbes key \"other\"", "unknown transition reason",
		"unknown node \"nowhere\"", "is unreachable", "only the last exam beat", "beat scope \"nodex\"", "title must not be empty",
		"expected a string, got integer 1"}
	all := diags.String()
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("missing %q", w)
		}
	}
	for i := 1; i < len(diags); i++ {
		a, b := diags[i-1].Pos, diags[i].Pos
		if a.Line > b.Line || (a.Line == b.Line && a.Col > b.Col) {
			t.Errorf("not sorted: %v before %v", a, b)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	d := Diagnostic{Pos: Pos{File: "a.yaml", Line: 3, Col: 7}, Severity: Error, Message: "unknown field x", Hint: "did you mean y?"}
	if got, want := d.String(), "a.yaml:3:7: error: unknown field x (did you mean y?)"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	w := Diagnostic{Pos: Pos{File: "a.yaml", Line: 1, Col: 1}, Severity: Warning, Message: "m"}
	if got := w.String(); got != "a.yaml:1:1: warning: m" {
		t.Errorf("got %q", got)
	}
	if Severity(7).String() != "Severity(7)" {
		t.Error(Severity(7).String())
	}
	ds := Diagnostics{w, d}
	if ds.HasErrors() != true || len(ds.Warnings()) != 1 {
		t.Error("HasErrors/Warnings")
	}
	if (Diagnostics{w}).HasErrors() {
		t.Error("warnings are not errors")
	}
}

func TestSuggest(t *testing.T) {
	cases := []struct{ in, want string }{
		{"maxFollowUp", "maxFollowUps"}, {"titel", "title"}, {"nxt", "next"}, {"zzzzzz", ""}, {"a", ""},
	}
	for _, c := range cases {
		if got := Suggest(c.in, []string{"maxFollowUps", "title", "next", "nodes"}); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

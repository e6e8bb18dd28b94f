package spec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// llmText is everything the examiner LLM is shown for a node.
func llmText(n CompiledNode) string {
	var b strings.Builder
	b.WriteString(n.LLM.RoleMessage)
	for _, m := range n.LLM.TaskMessages {
		b.WriteString("\n")
		b.WriteString(m.Content)
	}
	return b.String()
}

func TestLLMNeverSeesTransitions(t *testing.T) {
	e := compileExample(t)
	for _, n := range e.Nodes {
		t.Run(n.NodeID, func(t *testing.T) {
			text := llmText(n)
			for _, r := range Reasons {
				if strings.Contains(text, string(r)) {
					t.Errorf("LLM text names transition reason %q", r)
				}
			}
			var successors []string
			if n.Controller.Next != "" {
				successors = append(successors, n.Controller.Next)
			}
			for _, to := range n.Controller.Transitions {
				successors = append(successors, to)
			}
			for _, s := range successors {
				if strings.Contains(text, s) {
					t.Errorf("LLM text names successor node %q", s)
				}
			}
			fns, _ := json.Marshal(n.LLM.Functions)
			for _, s := range append(successors, names(Reasons)...) {
				if strings.Contains(string(fns), `"`+s+`"`) {
					t.Errorf("functions name %q", s)
				}
			}
		})
	}
}

// Cue phrases are ordinary words ("staff", "because"), so absence is proven two ways: the LLM
// part of every node is identical whether the cues and transitions exist or not, and unique
// sentinel cues never appear.
func TestLLMPartIndependentOfCuesAndTransitions(t *testing.T) {
	base := compileExample(t)
	s, diags := Load("hotel-breakfast.yaml", exampleSrc(t))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for i := range s.Evidence {
		s.Evidence[i].Cues = []string{"SENTINEL_CUE_" + s.Evidence[i].SignalType}
	}
	// Re-route every node: next goes straight to the end node, and only a skip reaches the
	// node that follows (so every node stays reachable).
	for i := range s.Nodes {
		if s.Nodes[i].Kind == KindEnd {
			continue
		}
		s.Nodes[i].Next = "wrapup"
		s.Nodes[i].Transitions = nil
		if i+1 < len(s.Nodes) && s.Nodes[i+1].Kind != KindEnd {
			s.Nodes[i].Transitions = []Transition{{On: ReasonSkipped, To: s.Nodes[i+1].NodeID}}
		}
	}
	changed, d2, err := CompileSpec(s)
	if err != nil {
		t.Fatalf("%v\n%s", err, d2)
	}
	for i, n := range changed.Nodes {
		if !reflect.DeepEqual(n.LLM, base.Nodes[i].LLM) {
			t.Errorf("node %s: LLM part changed with cues/transitions", n.NodeID)
		}
		if strings.Contains(llmText(n), "SENTINEL_CUE") {
			t.Errorf("node %s: a cue reached the LLM", n.NodeID)
		}
	}
}

func TestEveryNodeHasExactlyReportObservation(t *testing.T) {
	e := compileExample(t)
	want := ReportObservationTool()
	for _, n := range e.Nodes {
		if len(n.LLM.Functions) != 1 || !reflect.DeepEqual(n.LLM.Functions[0], want) {
			t.Errorf("node %s: functions = %+v", n.NodeID, n.LLM.Functions)
		}
		if len(n.LLM.TaskMessages) != 1 || n.LLM.TaskMessages[0].Role != "developer" {
			t.Errorf("node %s: task messages %+v", n.NodeID, n.LLM.TaskMessages)
		}
		msg := n.LLM.TaskMessages[0].Content
		for _, part := range []string{reportObservationReminder, consistencyDirective, "CONSTRAINTS:\n"} {
			if !strings.Contains(msg, part) {
				t.Errorf("node %s: task message lacks %q", n.NodeID, part[:20])
			}
		}
	}
}

func TestTaskMessageTemplate(t *testing.T) {
	e := compileExample(t)
	n := e.Node("scenario-hotel-breakfast")
	msg := n.LLM.TaskMessages[0].Content
	order := []string{"SCENARIO: Breakfast revenue", "OPENING: Sam says", "EVIDENCE TO LISTEN FOR:\n- proposes_options: Puts forward",
		"(levels: description, analysis, evaluation)", "TRANSVERSAL SKILLS TO LISTEN FOR:\n- communicates_clearly",
		"EXAMPLE FOLLOW-UP QUESTIONS", "CONSTRAINTS:\n- Maximum 3 follow-up questions\n- Time budget: 300 seconds\n- ALLOWED: ask_follow_up, ask_for_example, paraphrase\n- NEVER: give_hints, evaluate_answer, reveal_rubric",
		"After every candidate response, call report_observation", "CONSISTENCY: Use the same questioning approach"}
	at := 0
	for _, part := range order {
		i := strings.Index(msg[at:], part)
		if i < 0 {
			t.Fatalf("task message lacks %q after offset %d:\n%s", part, at, msg)
		}
		at += i + len(part)
	}
	if got := e.Node("welcome").LLM.TaskMessages[0].Content; strings.Contains(got, "SCENARIO:") || strings.Contains(got, "TO LISTEN FOR") {
		t.Errorf("scaffolding node has scenario/evidence sections:\n%s", got)
	}
	// Every node names the other nodes' signals, to report when the candidate gives them
	// there (never to ask for): the rule counts evidence from any node.
	for node, want := range map[string][]string{
		"welcome":                  {"proposes_options", "analyses_clientele", "considers_budget", "communicates_clearly", "plans_staffing"},
		"scenario-hotel-breakfast": {"plans_staffing"},
		"scenario-staff-rota":      {"proposes_options", "analyses_clientele"},
	} {
		got := e.Node(node).LLM.TaskMessages[0].Content
		_, others, ok := strings.Cut(got, otherPartsNote+"\n")
		if !ok {
			t.Errorf("node %s: no %q section:\n%s", node, otherPartsNote, got)
			continue
		}
		others, _, _ = strings.Cut(others, "\n\n")
		var sigs []string
		for _, line := range strings.Split(others, "\n") {
			sig, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), ":")
			sigs = append(sigs, sig)
		}
		if !reflect.DeepEqual(sigs, want) {
			t.Errorf("node %s: other parts' signals %v, want %v", node, sigs, want)
		}
	}
	if n.LLM.RoleMessage != strings.TrimSpace(e.Persona("hotel_manager").RoleMessage) {
		t.Errorf("role message %q", n.LLM.RoleMessage)
	}
	if got := e.Node("welcome").LLM.RoleMessage; !strings.HasPrefix(got, "You are a calm, neutral examiner") {
		t.Errorf("welcome uses the default persona, got %q", got)
	}
}

func TestReportObservationSchema(t *testing.T) {
	tool := ReportObservationTool()
	if tool.Name != "report_observation" {
		t.Fatal(tool.Name)
	}
	// Round-trip through JSON: what an LLM client actually sends.
	b, err := json.Marshal(tool.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Properties map[string]struct {
			Type  string   `json:"type"`
			Enum  []string `json:"enum"`
			Items struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	wantProps := map[string]string{
		"signals": "array", "commandDetected": "string", "answerQuality": "string", "needsFollowUp": "boolean",
		"followUpType": "string", "evidenceSufficient": "boolean", "anxietyDetected": "boolean", "distressDetected": "boolean",
		"rapportMove": "string", "dialogueMove": "string", "misconceptions": "array", "spokenText": "string",
	}
	if len(p.Properties) != len(wantProps) {
		t.Errorf("properties: got %d, want %d", len(p.Properties), len(wantProps))
	}
	for k, typ := range wantProps {
		if p.Properties[k].Type != typ {
			t.Errorf("%s: type %q, want %q", k, p.Properties[k].Type, typ)
		}
	}
	wantReq := []string{"signals", "answerQuality", "needsFollowUp", "evidenceSufficient", "anxietyDetected", "distressDetected", "spokenText"}
	if !reflect.DeepEqual(p.Required, wantReq) {
		t.Errorf("required %v", p.Required)
	}
	enums := map[string][]string{
		"commandDetected": {"repeat", "clarification", "request_rephrase", "slow_down", "pause", "thinking_aloud", "help", "skip", "revise_earlier_answer", "finish"},
		"answerQuality":   {"substantive", "partial", "off_topic", "silence", "unclear"},
		"followUpType":    {"probe", "redirect", "scaffold", "challenge", "nudge", "confirm", "extend", "concede"},
		"rapportMove":     {"encouragement", "acknowledgement", "reassurance", "none"},
		"dialogueMove":    {"paraphrase", "transition", "none"},
	}
	for k, want := range enums {
		if !reflect.DeepEqual(p.Properties[k].Enum, want) {
			t.Errorf("%s enum %v", k, p.Properties[k].Enum)
		}
	}
	sig := p.Properties["signals"].Items
	for _, f := range []string{"signalType", "rubricLevel", "excerpt", "confidence", "scaffoldingIntensity", "scaffoldingEffective"} {
		if _, ok := sig.Properties[f]; !ok {
			t.Errorf("signals[] lacks %s", f)
		}
	}
	if !reflect.DeepEqual(sig.Required, []string{"signalType", "excerpt", "confidence"}) {
		t.Errorf("signals[] required %v", sig.Required)
	}
	if sig.Properties["excerpt"]["maxLength"] != float64(200) {
		t.Errorf("excerpt maxLength %v", sig.Properties["excerpt"]["maxLength"])
	}
	mis := p.Properties["misconceptions"].Items
	if !reflect.DeepEqual(mis.Required, []string{"concept", "misconception", "correction"}) {
		t.Errorf("misconceptions[] required %v", mis.Required)
	}
	// Callers get their own copy.
	tool.Parameters["type"] = "changed"
	if ReportObservationTool().Parameters["type"] != "object" {
		t.Error("ReportObservationTool shares state between calls")
	}
}

func TestDefaultsResolved(t *testing.T) {
	src := []byte(`specVersion: "1"
id: minimal
title: Minimal
persona: {id: ex, roleMessage: "You examine."}
evidence:
  - {signalType: sig_a, description: "Does A", levels: [l1]}
nodes:
  - {nodeId: q, kind: assessment, scenario: S, conversationPrompt: "Q?", evidenceSignals: [sig_a], next: bye}
  - {nodeId: bye, kind: end, conversationPrompt: Bye}
`)
	e, _ := mustCompile(t, "min.yaml", src)
	wantPol := ResolvedPolicies{MaxClarifications: 2, STTMinConfidence: 0.5, TimeWarningSec: 60, ConfirmFinish: true,
		Gates:   ResolvedGates{FirstSpeak: 0, BeatHold: 0.2, PostSpeakBuffer: 1.0, UserIdle: 1.5, UserIdleTimeout: 8.0},
		Silence: ResolvedSilence{Enabled: true, CheckInSec: 20, RepeatSec: 20, Prompt: DefaultSilencePrompt}}
	if e.Policies != wantPol {
		t.Errorf("policies %+v", e.Policies)
	}
	if e.Language != "en" || e.EntryNode != "q" {
		t.Errorf("language %q entry %q", e.Language, e.EntryNode)
	}
	c := e.Node("q").Controller
	if c.MaxFollowUps != 3 || c.MaxOffTopicRedirects != 2 || c.RequiredEvidenceCount != 1 || c.Persona != "ex" {
		t.Errorf("node defaults %+v", c)
	}
	if e.Node("q").LLM.ContextStrategy != ContextReset {
		t.Errorf("context strategy %q", e.Node("q").LLM.ContextStrategy)
	}
	if len(e.Filters) != 5 {
		t.Fatalf("filters %d", len(e.Filters))
	}
	for i, f := range e.Filters {
		if f.Name != FilterNames[i] || !f.Enabled {
			t.Errorf("filter %d: %+v", i, f)
		}
	}
	if e.Filter(FilterLength).MaxChars != 500 || e.Filter(FilterPersonaBreak).Action != "replace" ||
		!reflect.DeepEqual(e.Filter(FilterLeadingQuestion).Patterns, DefaultPatterns(FilterLeadingQuestion)) {
		t.Errorf("filter defaults %+v", e.Filters)
	}
	if to, ok := e.Node("q").Successor(ReasonDistress); !ok || to != "bye" {
		t.Errorf("successor %q %v", to, ok)
	}
}

func TestFilterOverrides(t *testing.T) {
	src := []byte(`specVersion: "1"
id: f
title: F
persona: {id: ex, roleMessage: "You examine."}
evidence: [{signalType: a, description: "Does A", levels: [l1]}]
outputValidation:
  filters:
    - {name: length, maxChars: 300, action: split}
    - {name: leading_question, enabled: false}
    - {name: persona_break, patterns: ["as an ai"]}
nodes:
  - {nodeId: q, kind: assessment, scenario: S, conversationPrompt: "Q?", evidenceSignals: [a], next: bye}
  - {nodeId: bye, kind: end, conversationPrompt: Bye}
`)
	e, _ := mustCompile(t, "f.yaml", src)
	if f := e.Filter(FilterLength); f.MaxChars != 300 || f.Action != "split" || !f.Enabled {
		t.Errorf("length %+v", f)
	}
	if f := e.Filter(FilterLeadingQuestion); f.Enabled || len(f.Patterns) != 3 {
		t.Errorf("leading_question %+v", f)
	}
	if f := e.Filter(FilterPersonaBreak); !reflect.DeepEqual(f.Patterns, []string{"as an ai"}) {
		t.Errorf("persona_break %+v", f)
	}
	for i, f := range e.Filters {
		if f.Name != FilterNames[i] {
			t.Errorf("filter order: %d is %s", i, f.Name)
		}
	}
}

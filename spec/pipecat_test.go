package spec

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The pipecat-flows export must carry every critical field verbatim (pipecat-adapter A-5) and
// keep transitions out of what the FlowManager hands the LLM.
func TestPipecatFlowsLossless(t *testing.T) {
	e := compileExample(t)
	b, err := ExportPipecatFlows(e)
	if err != nil {
		t.Fatal(err)
	}
	var f PipecatFlow
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.InitialNode != "welcome" || f.AdapterVersion != AdapterVersion || len(f.Nodes) != len(e.Nodes) {
		t.Fatalf("initial_node %q adapterVersion %q nodes %d", f.InitialNode, f.AdapterVersion, len(f.Nodes))
	}
	if !reflect.DeepEqual(f.OutputValidationFilters, e.Filters) {
		t.Errorf("filters differ")
	}
	if !reflect.DeepEqual(f.Metadata.Policies, e.Policies) || !reflect.DeepEqual(f.Metadata.Beats, e.Beats) ||
		!reflect.DeepEqual(f.Metadata.Evidence, e.Evidence) || !reflect.DeepEqual(f.Metadata.Personas, e.Personas) {
		t.Errorf("exam metadata differs")
	}
	tool := ReportObservationTool()
	toolJSON, _ := json.Marshal(tool.Parameters["properties"])
	for i, n := range e.Nodes {
		if f.Metadata.NodeOrder[i] != n.NodeID {
			t.Errorf("nodeOrder[%d] = %q", i, f.Metadata.NodeOrder[i])
		}
		pn, ok := f.Nodes[n.NodeID]
		if !ok {
			t.Fatalf("node %s missing", n.NodeID)
		}
		if pn.Name != n.NodeID || pn.RoleMessage != n.LLM.RoleMessage || !reflect.DeepEqual(pn.TaskMessages, n.LLM.TaskMessages) {
			t.Errorf("%s: LLM part differs", n.NodeID)
		}
		if pn.ContextStrategy.Strategy != n.LLM.ContextStrategy {
			t.Errorf("%s: context strategy %q", n.NodeID, pn.ContextStrategy.Strategy)
		}
		if pn.Metadata.NodeID != n.NodeID || pn.Metadata.Index != n.Index || pn.Metadata.Kind != n.Kind {
			t.Errorf("%s: metadata header %+v", n.NodeID, pn.Metadata)
		}
		if !reflect.DeepEqual(pn.Metadata.NodeController, n.Controller) {
			t.Errorf("%s: controller metadata differs:\n%+v\n%+v", n.NodeID, pn.Metadata.NodeController, n.Controller)
		}
		if len(pn.Functions) != 1 || pn.Functions[0].Name != ReportObservationName ||
			!reflect.DeepEqual(pn.Functions[0].Required, ObservationRequiredFields) {
			t.Errorf("%s: functions %+v", n.NodeID, pn.Functions)
		}
		if got, _ := json.Marshal(pn.Functions[0].Properties); string(got) != string(toolJSON) {
			t.Errorf("%s: function properties differ from report_observation", n.NodeID)
		}
		var says []string
		for _, a := range pn.PreActions {
			if a.Type == "tts_say" {
				says = append(says, a.Text)
			}
		}
		var want []string
		if n.Controller.ScenarioIntro != "" {
			want = append(want, n.Controller.ScenarioIntro)
		}
		want = append(want, n.Controller.ConversationPrompt)
		if !reflect.DeepEqual(says, want) {
			t.Errorf("%s: pre_actions say %q, want %q", n.NodeID, says, want)
		}
		last := pn.PreActions[len(pn.PreActions)-1].Type
		if (n.Kind == KindEnd) != (last == "end_conversation") {
			t.Errorf("%s: last pre_action %q", n.NodeID, last)
		}
	}
	if got := f.Nodes["scenario-staff-rota"].ContextStrategy; got.Strategy != ContextResetWithSummary || got.SummaryPrompt == "" {
		t.Errorf("reset_with_summary: %+v", got)
	}
	if to := f.Nodes["scenario-hotel-breakfast"].Metadata.Transitions[ReasonDistress]; to != "wrapup" {
		t.Errorf("transition distress -> %q", to)
	}

	// The LLM-facing messages never mention transition reasons.
	for id, pn := range f.Nodes {
		llm, _ := json.Marshal(struct {
			R string
			T []Message
		}{pn.RoleMessage, pn.TaskMessages})
		for _, r := range Reasons {
			if strings.Contains(string(llm), string(r)) {
				t.Errorf("%s: LLM part names %s", id, r)
			}
		}
	}
}

func TestExportErrors(t *testing.T) {
	if _, err := ExportIR(nil); !errors.Is(err, ErrNilExam) {
		t.Errorf("ExportIR(nil) = %v", err)
	}
	if _, err := ExportPipecatFlows(nil); !errors.Is(err, ErrNilExam) {
		t.Errorf("ExportPipecatFlows(nil) = %v", err)
	}
	if _, err := Export(compileExample(t), Target("yaml")); !errors.Is(err, ErrUnknownTarget) {
		t.Errorf("Export(yaml) = %v", err)
	}
	if _, _, err := CompileSpec(nil); !errors.Is(err, ErrNilSpec) {
		t.Errorf("CompileSpec(nil) = %v", err)
	}
	if _, _, err := CompileFile("testdata/does-not-exist.yaml"); err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("CompileFile(missing) = %v", err)
	}
}

func TestIRRoundTrip(t *testing.T) {
	e := compileExample(t)
	b, err := ExportIR(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Exam
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, err := ExportIR(&back)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(b2) {
		t.Errorf("IR does not survive a JSON round trip:\n%s", firstDiff(string(b), string(b2)))
	}
}

func TestCompileSpecInCode(t *testing.T) {
	s := &Spec{
		SpecVersion: "1", ID: "code", Title: "In code",
		Persona:  Persona{ID: "ex", RoleMessage: "You examine."},
		Evidence: []EvidenceDef{{SignalType: "a", Description: "Does A", Levels: []string{"l1"}}},
		Nodes: []Node{
			{NodeID: "q", Kind: KindAssessment, Scenario: "S", ConversationPrompt: "Q?", EvidenceSignals: []string{"a"}, Next: "end"},
			{NodeID: "end", Kind: KindEnd, ConversationPrompt: "Bye"},
		},
	}
	e, diags, err := CompileSpec(s)
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v %s", err, diags)
	}
	if len(e.SourceSHA256) != 64 {
		t.Errorf("sourceSha256 %q", e.SourceSHA256)
	}
	s.Nodes[0].Next = "nowhere"
	_, diags, err = CompileSpec(s)
	if !errors.Is(err, ErrInvalid) || len(diags) == 0 {
		t.Fatalf("err %v", err)
	}
	// A spec built in code has no file positions.
	if d := diags[0]; d.Pos.Line != 0 || !strings.Contains(d.String(), "<spec>: error:") {
		t.Errorf("diagnostic %q", d)
	}
}

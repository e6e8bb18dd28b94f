package marking

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// stream builds a session's events from typed payloads, seq from 1.
type stream struct {
	t      testing.TB
	events []runtime.Event
}

func (s *stream) add(p runtime.Payload) int64 {
	s.t.Helper()
	seq := int64(len(s.events) + 1)
	ev, err := runtime.NewEvent("s1", seq, headless.DefaultStart.Add(time.Duration(seq)*time.Second), p)
	if err != nil {
		s.t.Fatal(err)
	}
	s.events = append(s.events, ev)
	return seq
}

func (s *stream) said(id string) int64 {
	return s.add(&runtime.TranscriptSegmentPayload{SegmentID: id, NodeID: "scenario-hotel-breakfast", Speaker: runtime.SpeakerCandidate,
		Text: "answer " + id, Confidence: 0.9, IsFinal: true})
}

func (s *stream) signal(signal, level string, conf float64, scaffolding *int) int64 {
	return s.add(&runtime.EvidenceUpdatePayload{NodeID: "scenario-hotel-breakfast", SignalType: signal, RubricLevel: level,
		Excerpt: "quote of " + signal, Confidence: conf, ScaffoldingIntensity: scaffolding})
}

func intp(i int) *int { return &i }

// TestProposeRule checks the rule on criterion "resources" of the example scheme
// (considers_budget, plans_staffing; description 1, analysis 3, evaluation 4; minConfidence
// 0.6; scaffolding from intensity 2 demotes 1 level).
func TestProposeRule(t *testing.T) {
	type sig struct {
		signal, level string
		conf          float64
		scaffolding   *int
	}
	cases := []struct {
		name       string
		minSignals int
		signals    []sig
		level      string
		marks      int
		counted    []string // CountedAs per evidence, "" when not counted
		gaps       []string
	}{
		{"nothing evidenced", 1, nil, "none", 0, nil, []string{"considers_budget", "plans_staffing"}},
		{"one signal at analysis", 1, []sig{{"considers_budget", "analysis", 0.9, nil}}, "analysis", 3, []string{"analysis"}, []string{"plans_staffing"}},
		{"the highest counted level", 1, []sig{{"considers_budget", "description", 0.9, nil}, {"plans_staffing", "evaluation", 0.8, nil}}, "evaluation", 4,
			[]string{"description", "evaluation"}, []string{}},
		{"below the confidence threshold", 1, []sig{{"considers_budget", "evaluation", 0.59, nil}}, "none", 0, []string{""}, []string{"plans_staffing"}},
		{"at the confidence threshold", 1, []sig{{"considers_budget", "evaluation", 0.6, nil}}, "evaluation", 4, []string{"evaluation"}, []string{"plans_staffing"}},
		{"scaffolding below the cap", 1, []sig{{"considers_budget", "evaluation", 0.9, intp(1)}}, "evaluation", 4, []string{"evaluation"}, []string{"plans_staffing"}},
		{"scaffolding at the cap demotes", 1, []sig{{"considers_budget", "evaluation", 0.9, intp(2)}}, "analysis", 3, []string{"analysis"}, []string{"plans_staffing"}},
		{"demoted below the lowest level", 1, []sig{{"considers_budget", "description", 0.9, intp(3)}}, "none", 0, []string{"none"}, []string{"plans_staffing"}},
		{"no rubric level reads as the lowest", 1, []sig{{"plans_staffing", "", 0.9, nil}}, "description", 1, []string{"description"}, []string{"considers_budget"}},
		{"a level the criterion lacks", 1, []sig{{"plans_staffing", "synthesis", 0.9, nil}}, "none", 0, []string{""}, []string{"considers_budget"}},
		{"two signals needed, two given", 2, []sig{{"considers_budget", "evaluation", 0.9, nil}, {"plans_staffing", "analysis", 0.9, nil}}, "analysis", 3,
			[]string{"evaluation", "analysis"}, []string{}},
		{"two signals needed, one given", 2, []sig{{"considers_budget", "evaluation", 0.9, nil}}, "none", 0, []string{"evaluation"}, []string{"plans_staffing"}},
		{"another criterion's signal is not counted", 1, []sig{{"proposes_options", "evaluation", 0.9, nil}}, "none", 0, nil, []string{"considers_budget", "plans_staffing"}},
	}
	base := runtimetest.DemoExam(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exam := *base
			m := *exam.Marking
			m.Rule.MinSignals = tc.minSignals
			exam.Marking = &m
			s := &stream{t: t}
			var segs []int64
			for i, sg := range tc.signals {
				segs = append(segs, s.said("seg-"+string(rune('a'+i))))
				s.signal(sg.signal, sg.level, sg.conf, sg.scaffolding)
			}
			p, err := Propose(&exam, s.events)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(p.Criteria, func(c CriterionProposal) bool { return c.Criterion == "resources" })
			c := p.Criteria[i]
			if c.Level != tc.level || c.Marks != tc.marks || c.MaxMarks != 4 {
				t.Errorf("proposed %s (%d of %d), want %s (%d of 4): %s", c.Level, c.Marks, c.MaxMarks, tc.level, tc.marks, c.Reason)
			}
			var counted []string
			for j, e := range c.Evidence {
				counted = append(counted, e.CountedAs)
				if e.Counted != (e.CountedAs != "" && e.CountedAs != spec.NoLevel) {
					t.Errorf("evidence %d: counted %v as %q", j, e.Counted, e.CountedAs)
				}
				if e.SegmentSeq != segs[j] || e.SegmentID != "seg-"+string(rune('a'+j)) {
					t.Errorf("evidence %d rests on %s (seq %d), want the turn before it (seq %d)", j, e.SegmentID, e.SegmentSeq, segs[j])
				}
			}
			if strings.Join(counted, ",") != strings.Join(tc.counted, ",") {
				t.Errorf("counted as %q, want %q", counted, tc.counted)
			}
			if tc.gaps == nil {
				tc.gaps = []string{}
			}
			if strings.Join(c.Gaps, ",") != strings.Join(tc.gaps, ",") {
				t.Errorf("gaps %v, want %v", c.Gaps, tc.gaps)
			}
		})
	}
}

// TestProposeMisconceptions links a misconception to the criteria assessed in its node and
// to the turn it was heard in.
func TestProposeMisconceptions(t *testing.T) {
	s := &stream{t: t}
	seg := s.said("seg-a")
	seq := s.add(&runtime.EvidenceUpdatePayload{NodeID: "scenario-hotel-breakfast", SignalType: "misconception",
		Misconception: &runtime.Misconception{Concept: "revenue", Misconception: "revenue is profit", Correction: "revenue less costs"}})
	p, err := Propose(runtimetest.DemoExam(t, nil), s.events)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Criteria {
		// The breakfast node assesses options, clientele, budget (resources) and
		// communication (transversal); every criterion rests on one of them.
		if len(c.Misconceptions) != 1 || c.Misconceptions[0].Seq != seq || c.Misconceptions[0].SegmentSeq != seg || c.Misconceptions[0].Concept != "revenue" {
			t.Errorf("%s: misconceptions %+v", c.Criterion, c.Misconceptions)
		}
		if len(c.Evidence) != 0 {
			t.Errorf("%s: a misconception counted as evidence: %+v", c.Criterion, c.Evidence)
		}
	}
}

// TestProposeRehearsal proposes marks for the example rehearsal, played by the real
// controller and offline examiner (golden: testdata/rehearsal-proposal.json).
func TestProposeRehearsal(t *testing.T) {
	events := rehearsalEvents(t)
	_, exam := runtimetest.Rehearsal(t)
	p, err := Propose(exam, events)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/rehearsal-proposal.json", append(b, '\n'))
	again, _ := Propose(exam, events)
	b2, _ := json.MarshalIndent(again, "", "  ")
	if string(b2)+"\n" != string(b)+"\n" {
		t.Error("the same events gave another proposal")
	}
	if _, err := Propose(&spec.Exam{}, events); err == nil {
		t.Error("an exam without a scheme gave a proposal")
	}
}

// rehearsalEvents plays the example rehearsal and returns its events.
func rehearsalEvents(t testing.TB) []runtime.Event {
	t.Helper()
	script, _ := runtimetest.Rehearsal(t)
	res, err := headless.Run(t.Context(), script, headless.Options{SessionID: "rehearsal", Start: headless.DefaultStart})
	if err != nil {
		t.Fatal(err)
	}
	return res.Log
}

// TestProposeNodes: a criterion counts evidence whichever node it was heard in, unless the
// scheme names its nodes; evidence heard elsewhere is then listed, not counted, and says why.
func TestProposeNodes(t *testing.T) {
	const rota, breakfast = "scenario-staff-rota", "scenario-hotel-breakfast"
	cases := []struct {
		name    string
		nodes   []string
		level   string
		counted bool
		note    string
		gaps    []string
	}{
		{"any node", nil, "analysis", true, "", []string{}},
		{"restricted to the node it was heard in", []string{rota}, "analysis", true, "", []string{}},
		{"restricted to another node", []string{breakfast}, "none", false, "heard in scenario-staff-rota; the criterion counts only scenario-hotel-breakfast", []string{"analyses_clientele"}},
	}
	base := runtimetest.DemoExam(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exam := withCriterionNodes(base, "clientele", tc.nodes)
			s := &stream{t: t}
			s.said("seg-a")
			s.add(&runtime.EvidenceUpdatePayload{NodeID: rota, SignalType: "analyses_clientele", RubricLevel: "analysis",
				Excerpt: "business travellers need a quick lunch", Confidence: 0.9, OtherNode: true})
			p, err := Propose(exam, s.events)
			if err != nil {
				t.Fatal(err)
			}
			c := p.Criteria[slices.IndexFunc(p.Criteria, func(c CriterionProposal) bool { return c.Criterion == "clientele" })]
			if c.Level != tc.level || len(c.Evidence) != 1 || c.Evidence[0].Counted != tc.counted || c.Evidence[0].Note != tc.note ||
				c.Evidence[0].NodeID != rota || !slices.Equal(c.Gaps, tc.gaps) {
				t.Errorf("proposed %s (%s), evidence %+v, gaps %v; want %s, counted %v, note %q, gaps %v", c.Level, c.Reason, c.Evidence, c.Gaps,
					tc.level, tc.counted, tc.note, tc.gaps)
			}
		})
	}
}

// withCriterionNodes is exam with criterion id restricted to nodes (a copy; exam is unchanged).
func withCriterionNodes(exam *spec.Exam, id string, nodes []string) *spec.Exam {
	e := *exam
	m := *exam.Marking
	m.Criteria = slices.Clone(m.Criteria)
	m.Criterion(id).Nodes = nodes
	e.Marking = &m
	return &e
}

// TestProposeEvidenceFromAnotherNode plays a script whose candidate analyses the guests in
// the staffing part (runtime/headless/testdata/other-node-evidence.yaml) through the real
// controller and offline examiner: the clientele criterion gets the signal heard there, and
// with nodes: [scenario-hotel-breakfast] on that criterion it does not count.
func TestProposeEvidenceFromAnotherNode(t *testing.T) {
	script, err := headless.LoadScript("../runtime/headless/testdata/other-node-evidence.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exam, err := script.CompileSpec()
	if err != nil {
		t.Fatal(err)
	}
	res, err := headless.Run(t.Context(), script, headless.Options{SessionID: "other-node", Start: headless.DefaultStart})
	if err != nil {
		t.Fatal(err)
	}
	clientele := func(exam *spec.Exam) CriterionProposal {
		p, err := Propose(exam, res.Log)
		if err != nil {
			t.Fatal(err)
		}
		return p.Criteria[slices.IndexFunc(p.Criteria, func(c CriterionProposal) bool { return c.Criterion == "clientele" })]
	}
	c := clientele(exam)
	if c.Level != "analysis" || len(c.Evidence) != 1 || c.Evidence[0].NodeID != "scenario-staff-rota" || !c.Evidence[0].Counted {
		t.Fatalf("clientele from the staffing part: %s (%s), evidence %+v", c.Level, c.Reason, c.Evidence)
	}
	if c = clientele(withCriterionNodes(exam, "clientele", []string{"scenario-hotel-breakfast"})); c.Level != spec.NoLevel || c.Evidence[0].Counted {
		t.Fatalf("clientele restricted to the breakfast part: %s (%s), evidence %+v", c.Level, c.Reason, c.Evidence)
	}
}

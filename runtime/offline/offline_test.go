package offline_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// newExaminer is the offline examiner with its defaults.
func newExaminer(t testing.TB) *offline.Examiner {
	t.Helper()
	ex, err := offline.New()
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func observe(t testing.TB, ex *offline.Examiner, exam *spec.Exam, nodeID, text string, covered []string, history ...spec.Message) (runtime.Observation, []string) {
	t.Helper()
	node := exam.Node(nodeID)
	req := &runtime.ExaminerRequest{Exam: exam, Node: node, Messages: history, CoveredSignals: covered,
		Candidate: runtime.TranscriptSegmentPayload{NodeID: nodeID, Speaker: runtime.SpeakerCandidate, Text: text, Confidence: 1, IsFinal: true}}
	reply, err := ex.Observe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	obs, problems, err := runtime.ParseObservation(reply.Arguments, node, exam)
	if err != nil {
		t.Fatalf("offline reply rejected by the controller's parser: %v\n%s", err, reply.Arguments)
	}
	return obs, problems
}

func TestOfflineObservations(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	ex := newExaminer(t)
	const breakfast = "scenario-hotel-breakfast"
	tests := []struct {
		name       string
		node       string
		text       string
		covered    []string
		signals    []string
		level      string // rubric level of the first signal
		quality    runtime.AnswerQuality
		command    runtime.Command
		followUp   string // followUpType, "" for none
		sufficient bool
		spoken     string // substring
		anxiety    bool
		distress   bool
	}{
		{name: "scaffolding answer", node: "welcome", text: "I'm Priya, on the hospitality course.", quality: runtime.QualitySubstantive, sufficient: true, spoken: "Thank you."},
		{name: "scaffolding too short", node: "welcome", text: "Priya.", quality: runtime.QualityPartial, followUp: "nudge"},
		{name: "one signal, probe the next target", node: breakfast, text: "We could open a second buffet line.",
			signals: []string{"proposes_options"}, level: "description", quality: runtime.QualitySubstantive, followUp: "probe", spoken: "Who are the guests having breakfast at that time?"},
		{name: "reasoning lifts the level", node: breakfast, text: "We could add a second line because the queue is long.",
			signals: []string{"proposes_options", "communicates_clearly"}, level: "analysis", quality: runtime.QualitySubstantive, followUp: "probe"},
		{name: "weighing lifts it further", node: breakfast, text: "We could add staff, however the cost is high compared to the revenue.",
			signals: []string{"proposes_options", "considers_budget", "plans_staffing"}, level: "evaluation", quality: runtime.QualitySubstantive, sufficient: true},
		// Another node's signal is reported where it is heard (evidence counts from any node),
		// but it answers another question: the answer is judged on the node's own signals.
		{name: "another part's evidence is reported", node: "scenario-staff-rota", text: "The guests at the conference are business travellers who need a quick lunch.",
			signals: []string{"analyses_clientele"}, level: "analysis", quality: runtime.QualityPartial, followUp: "probe", spoken: "How many extra people would you need"},
		{name: "another part's evidence alone is off topic", node: breakfast, text: "I would put two more people on the rota for the conference.",
			signals: []string{"plans_staffing"}, quality: runtime.QualityOffTopic, followUp: "redirect", spoken: "Let's come back"},
		{name: "enough with what is covered", node: breakfast, text: "Most guests are business travellers.", covered: []string{"proposes_options"},
			signals: []string{"analyses_clientele"}, quality: runtime.QualitySubstantive, sufficient: true},
		{name: "word boundaries", node: breakfast, text: "The costume party was fun for the optionality.", quality: runtime.QualityOffTopic, followUp: "redirect"},
		{name: "on topic without signals", node: breakfast, text: "The buffet is busy in the morning.", quality: runtime.QualityPartial, followUp: "probe", spoken: "Is there another way"},
		{name: "off topic", node: breakfast, text: "I watched a great film yesterday evening.", quality: runtime.QualityOffTopic, followUp: "redirect", spoken: "Let's come back"},
		{name: "silence", node: breakfast, text: "", quality: runtime.QualitySilence, followUp: "nudge", spoken: "Take your time."},
		{name: "command", node: breakfast, text: "Could you repeat the question?", quality: runtime.QualityPartial, command: runtime.CmdRepeat},
		{name: "clarification restates the scenario", node: breakfast, text: "What do you mean?", quality: runtime.QualityPartial, command: runtime.CmdClarification, spoken: "Breakfast revenue at the hotel fell by 15%"},
		{name: "anxiety", node: breakfast, text: "Sorry, I'm so nervous, my mind went blank about the buffet.", quality: runtime.QualityPartial, followUp: "probe", anxiety: true, spoken: "Take your time."},
		{name: "distress", node: breakfast, text: "I can't do this, I give up on the breakfast.", quality: runtime.QualityPartial, followUp: "probe", anxiety: true, distress: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, problems := observe(t, ex, exam, tt.node, tt.text, tt.covered)
			if len(problems) > 0 {
				t.Fatalf("problems %q", problems)
			}
			var sigs []string
			for _, s := range o.Signals {
				sigs = append(sigs, s.SignalType)
				if s.Excerpt == "" || s.Confidence <= 0 || s.Confidence > 1 {
					t.Errorf("signal %+v", s)
				}
			}
			if !reflect.DeepEqual(sigs, tt.signals) {
				t.Fatalf("signals %v, want %v", sigs, tt.signals)
			}
			if tt.level != "" && o.Signals[0].RubricLevel != tt.level {
				t.Errorf("level %q, want %q", o.Signals[0].RubricLevel, tt.level)
			}
			if o.AnswerQuality != tt.quality || o.CommandDetected != tt.command || o.FollowUpType != tt.followUp ||
				o.NeedsFollowUp != (tt.followUp != "") || o.EvidenceSufficient != tt.sufficient ||
				o.AnxietyDetected != tt.anxiety || o.DistressDetected != tt.distress {
				t.Fatalf("observation %+v", o)
			}
			if !strings.Contains(o.SpokenText, tt.spoken) {
				t.Errorf("spoken %q lacks %q", o.SpokenText, tt.spoken)
			}
		})
	}
}

func TestOfflineRotatesProbes(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	ex := newExaminer(t)
	// The probe for analyses_clientele was already asked; with one probe it is asked again.
	history := []spec.Message{{Role: "assistant", Content: "Who are the guests having breakfast at that time?"}}
	o, _ := observe(t, ex, exam, "scenario-hotel-breakfast", "We could open a second buffet line.", nil, history...)
	if o.SpokenText != "Who are the guests having breakfast at that time?" {
		t.Fatalf("spoken %q", o.SpokenText)
	}
}

func TestOfflineDeterministicAndOrdered(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	ex := newExaminer(t)
	req := &runtime.ExaminerRequest{Exam: exam, Node: exam.Node("scenario-hotel-breakfast"),
		Candidate: runtime.TranscriptSegmentPayload{Text: "We could open a second buffet line for the guests."}}
	a, _ := ex.Observe(context.Background(), req)
	b, _ := ex.Observe(context.Background(), req)
	if string(a.Arguments) != string(b.Arguments) {
		t.Fatalf("not deterministic:\n%s\n%s", a.Arguments, b.Arguments)
	}
	// Decision fields precede spokenText, so a streaming controller can decide early.
	if i, j := strings.Index(string(a.Arguments), `"evidenceSufficient"`), strings.Index(string(a.Arguments), `"spokenText"`); i < 0 || j < i {
		t.Fatalf("field order: %s", a.Arguments)
	}
}

// TestOfflineAdminLine: the offline examiner says a line only for an instruction addressed to
// the candidate; any other instruction is reported not actionable and nothing of it is said
// (it used to read "The candidate looks tired, …" out word for word).
func TestOfflineAdminLine(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	ex := newExaminer(t)
	for _, tc := range []struct {
		in, want string
		result   runtime.AdminStatus
	}{
		{"Ask the candidate to speak up.", "Could you speak up, please?", runtime.AdminConsumed},
		{"ask them to give an example", "Could you give an example, please?", runtime.AdminConsumed},
		{"Ask about weekend cover.", "Could you tell me about weekend cover?", runtime.AdminConsumed},
		{"Ask how the plan fits the budget.", "Could you tell me how the plan fits the budget?", runtime.AdminConsumed},
		{"ask the candidate why they chose a buffet", "Could you tell me why they chose a buffet?", runtime.AdminConsumed},
		{"Ask who", "", runtime.AdminNotActionable},
		{"Tell the candidate they have two minutes.", "They have two minutes.", runtime.AdminConsumed},
		{"tell them that the room is booked until noon", "The room is booked until noon.", runtime.AdminConsumed},
		{"Please remind them to answer in full.", "", runtime.AdminNotActionable},
		{"The candidate looks tired, wrap up the breakfast question soon.", "", runtime.AdminNotActionable},
		{"Say hello.", "", runtime.AdminNotActionable}, // the examiner's own words go through mode say
		{"Ask the candidate to", "", runtime.AdminNotActionable},
	} {
		req := &runtime.ExaminerRequest{Exam: exam, Node: exam.Node("welcome"), AdminOnly: true, AdminInstructions: []string{tc.in}}
		reply, err := ex.Observe(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ SpokenText string }
		if err := json.Unmarshal(reply.Arguments, &v); err != nil || v.SpokenText != tc.want {
			t.Errorf("%q → %q (%v), want %q", tc.in, v.SpokenText, err, tc.want)
		}
		if len(reply.AdminResults) != 1 || reply.AdminResults[0] != tc.result {
			t.Errorf("%q → results %v, want [%s]", tc.in, reply.AdminResults, tc.result)
		}
	}
}

func TestOfflineOptions(t *testing.T) {
	if _, err := offline.New(offline.WithStreaming(0)); err == nil {
		t.Fatal("chunk 0 accepted")
	}
	ex := newExaminer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ex.Observe(ctx, &runtime.ExaminerRequest{}); err == nil {
		t.Fatal("cancelled context ignored")
	}
	if _, err := ex.Observe(context.Background(), &runtime.ExaminerRequest{}); err == nil {
		t.Fatal("request without exam accepted")
	}
}

// FuzzOffline: whatever the candidate says, the offline examiner returns arguments the
// controller accepts without repairs.
func FuzzOffline(f *testing.F) {
	exam := runtimetest.DemoExam(f, nil)
	ex := newExaminer(f)
	for _, s := range []string{"", "repeat", "We could add a buffet because guests queue.", "\xff\xfe", strings.Repeat("cost ", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, id := range []string{"welcome", "scenario-hotel-breakfast", "scenario-staff-rota"} {
			_, problems := observe(t, ex, exam, id, text, nil)
			if len(problems) > 0 {
				t.Fatalf("%s: problems %q for %q", id, problems, text)
			}
		}
	})
}

func TestOfflineQueuedInstructions(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	ex := newExaminer(t)
	req := &runtime.ExaminerRequest{Exam: exam, Node: exam.Node("scenario-hotel-breakfast"),
		AdminInstructions: []string{"Ask the candidate to give an example.", "Keep the pace up."},
		Candidate:         runtime.TranscriptSegmentPayload{Text: "We could open a second buffet line."}}
	reply, err := ex.Observe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ SpokenText string }
	if err := json.Unmarshal(reply.Arguments, &v); err != nil {
		t.Fatal(err)
	}
	if v.SpokenText != "Could you give an example, please? Who are the guests having breakfast at that time?" {
		t.Fatalf("spoken %q", v.SpokenText)
	}
	if want := []runtime.AdminStatus{runtime.AdminConsumed, runtime.AdminNotActionable}; !slices.Equal(reply.AdminResults, want) {
		t.Fatalf("results %v, want %v", reply.AdminResults, want)
	}
	// A command's answer does not carry the line: the instruction stays queued (unknown).
	req.Candidate.Text = "Could you repeat the question?"
	if reply, err = ex.Observe(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if want := []runtime.AdminStatus{runtime.AdminStatusUnknown, runtime.AdminNotActionable}; !slices.Equal(reply.AdminResults, want) {
		t.Fatalf("results on a command %v, want %v", reply.AdminResults, want)
	}
}

// TestOfflineLevelFromLevelCues: with levelCues authored, the level is the highest one whose
// cues the answer holds (the first level when none), as the exam says, not the built-in
// guess; without them, the guess (reasons lift to the second level, weighing to the third).
func TestOfflineLevelFromLevelCues(t *testing.T) {
	const authored = `    levelCues:
      analysis: ["because", "so that", "which means", "in order to"]
      evaluation: ["better than", "compared to", "on the other hand", "trade-off"]
`
	custom := func(src string) string {
		return strings.Replace(src, authored, `    levelCues:
      analysis: ["pilot"]
      evaluation: ["measure", "roll back"]
`, 1)
	}
	none := func(src string) string {
		i := strings.Index(src, "    levelCues:\n")
		for i >= 0 {
			j := strings.Index(src[i:], "\n  - signalType:")
			k := strings.Index(src[i:], "\n\n")
			end := k
			if j >= 0 && j < k {
				end = j
			}
			src = src[:i] + src[i+end+1:]
			i = strings.Index(src, "    levelCues:\n")
		}
		return src
	}
	ex := newExaminer(t)
	tests := []struct {
		name, text, want string
		edit             func(string) string
	}{
		{"example: no level cue", "We could open a second buffet line.", "description", nil},
		{"example: a reason", "We could open a second buffet line so that the queue moves.", "analysis", nil},
		{"example: weighed", "We could open a second line, which is better than a bigger buffet.", "evaluation", nil},
		{"example: the highest level heard wins", "We could open a line because it is better than a bigger buffet.", "evaluation", nil},
		{"authored: its own words lift", "We could run a pilot of a second line.", "analysis", custom},
		{"authored: the third level's words", "We could run a pilot and measure the queue, then roll back.", "evaluation", custom},
		{"authored: the built-in guess's words do not", "We could open a second line because it is better than the buffet, however it costs.", "description", custom},
		{"none authored: the guess", "We could open a second line because the queue is long.", "analysis", none},
		{"none authored: weighing", "We could open a second line; however, the kitchen is small.", "evaluation", none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exam := runtimetest.DemoExam(t, tt.edit)
			if tt.edit != nil && reflect.DeepEqual(exam.Signal("proposes_options").LevelCues, runtimetest.DemoExam(t, nil).Signal("proposes_options").LevelCues) {
				t.Fatal("the edit did not change the demo's levelCues")
			}
			o, _ := observe(t, ex, exam, "scenario-hotel-breakfast", tt.text, nil)
			for _, s := range o.Signals {
				if s.SignalType == "proposes_options" {
					if s.RubricLevel != tt.want {
						t.Errorf("level %q, want %q", s.RubricLevel, tt.want)
					}
					return
				}
			}
			t.Fatalf("no proposes_options in %+v", o.Signals)
		})
	}
}

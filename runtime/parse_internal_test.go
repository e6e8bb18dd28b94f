package runtime

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
)

func basicExam(t testing.TB) *spec.Exam {
	t.Helper()
	src, err := os.ReadFile("testdata/basic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exam, diags, err := spec.Compile("basic.yaml", src)
	if err != nil {
		t.Fatalf("%v\n%v", err, diags)
	}
	return exam
}

func TestParseObservation(t *testing.T) {
	exam := basicExam(t)
	node := exam.Node("plan")
	const base = `"answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Go on."`
	long := strings.Repeat("é", 250)
	tests := []struct {
		name     string
		raw      string
		wantErr  error
		problems int
		check    func(t *testing.T, o Observation)
	}{
		{name: "minimal", raw: `{"signals":[],` + base + `}`},
		{name: "full", raw: `{"signals":[{"signalType":"names_risk","rubricLevel":"analysis","excerpt":"untested","confidence":0.9,"scaffoldingIntensity":2,"scaffoldingEffective":true}],
			"commandDetected":"repeat","answerQuality":"substantive","needsFollowUp":true,"followUpType":"probe","evidenceSufficient":true,
			"anxietyDetected":true,"distressDetected":true,"rapportMove":"acknowledgement","dialogueMove":"paraphrase",
			"misconceptions":[{"concept":"c","misconception":"m","correction":"k"}],"spokenText":"Hi."}`,
			check: func(t *testing.T, o Observation) {
				if len(o.Signals) != 1 || o.Signals[0].RubricLevel != "analysis" || *o.Signals[0].ScaffoldingIntensity != 2 ||
					o.CommandDetected != CmdRepeat || !o.DistressDetected || o.FollowUpType != "probe" || len(o.Misconceptions) != 1 {
					t.Errorf("parsed %+v", o)
				}
			}},
		{name: "not json", raw: `{"signals":`, wantErr: ErrMalformedArguments},
		{name: "not an object", raw: `[1,2]`, wantErr: ErrMalformedArguments},
		{name: "empty", raw: ``, wantErr: ErrMalformedArguments},
		{name: "missing spokenText", raw: `{"signals":[],"answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false}`, wantErr: ErrMissingField},
		{name: "missing signals", raw: `{` + base + `}`, wantErr: ErrMissingField},
		{name: "missing answerQuality", raw: `{"signals":[],"needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":""}`, wantErr: ErrMissingField},
		{name: "wrong type", raw: `{"signals":[],"answerQuality":"partial","needsFollowUp":"yes","evidenceSufficient":false,"anxietyDetected":false,"spokenText":""}`, wantErr: ErrInvalidField},
		{name: "invalid answerQuality", raw: `{"signals":[],"answerQuality":"great","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":""}`, wantErr: ErrInvalidField},
		{name: "null signals", raw: `{"signals":null,` + base + `}`, problems: 1},
		{name: "unknown field", raw: `{"signals":[],"nextNode":"x",` + base + `}`, problems: 1},
		{name: "unknown signal type", raw: `{"signals":[{"signalType":"telepathy","excerpt":"x","confidence":1}],` + base + `}`, problems: 1,
			check: func(t *testing.T, o Observation) {
				if len(o.Signals) != 0 {
					t.Errorf("unknown signal kept: %+v", o.Signals)
				}
			}},
		// Evidence counts whichever node it is heard in: names_risk is the plan node's, heard
		// in the intro node (below), and kept.
		{name: "signal of another node", raw: `{"signals":[{"signalType":"names_risk","excerpt":"x","confidence":1}],` + base + `}`, problems: 0,
			check: func(t *testing.T, o Observation) {
				if len(o.Signals) != 1 || o.Signals[0].SignalType != "names_risk" {
					t.Errorf("another node's signal dropped: %+v", o.Signals)
				}
			}},
		{name: "signal no node listens for", raw: `{"signals":[{"signalType":"unheard","excerpt":"x","confidence":1}],` + base + `}`, problems: 1,
			check: func(t *testing.T, o Observation) {
				if len(o.Signals) != 0 {
					t.Errorf("a signal no node listens for kept: %+v", o.Signals)
				}
			}},
		{name: "signal missing confidence", raw: `{"signals":[{"signalType":"names_risk","excerpt":"x"}],` + base + `}`, problems: 1},
		{name: "signal wrong type", raw: `{"signals":[{"signalType":"names_risk","excerpt":5,"confidence":1}],` + base + `}`, problems: 1},
		{name: "confidence clamped", raw: `{"signals":[{"signalType":"names_risk","excerpt":"x","confidence":1.7},{"signalType":"proposes_fix","excerpt":"y","confidence":-2}],` + base + `}`, problems: 2,
			check: func(t *testing.T, o Observation) {
				if o.Signals[0].Confidence != 1 || o.Signals[1].Confidence != 0 {
					t.Errorf("confidence not clamped: %+v", o.Signals)
				}
			}},
		{name: "excerpt capped rune-safe", raw: `{"signals":[{"signalType":"names_risk","excerpt":"` + long + `","confidence":0.5}],` + base + `}`, problems: 1,
			check: func(t *testing.T, o Observation) {
				if n := utf8.RuneCountInString(o.Signals[0].Excerpt); n != MaxExcerptRunes || !utf8.ValidString(o.Signals[0].Excerpt) {
					t.Errorf("excerpt has %d runes", n)
				}
			}},
		{name: "invalid rubric level", raw: `{"signals":[{"signalType":"proposes_fix","rubricLevel":"evaluation","excerpt":"x","confidence":0.5}],` + base + `}`, problems: 1,
			check: func(t *testing.T, o Observation) {
				if len(o.Signals) != 1 || o.Signals[0].RubricLevel != "" {
					t.Errorf("level not cleared: %+v", o.Signals)
				}
			}},
		{name: "invalid enums", raw: `{"signals":[],"commandDetected":"dance","followUpType":"bribe","rapportMove":"flattery","dialogueMove":"monologue",` + base + `}`, problems: 4,
			check: func(t *testing.T, o Observation) {
				if o.CommandDetected != "" || o.FollowUpType != "" || o.RapportMove != "" || o.DialogueMove != "" {
					t.Errorf("invalid enums kept: %+v", o)
				}
			}},
		{name: "scaffolding intensity clamped", raw: `{"signals":[{"signalType":"names_risk","excerpt":"x","confidence":0.5,"scaffoldingIntensity":9}],` + base + `}`, problems: 1},
		{name: "misconception incomplete", raw: `{"signals":[],"misconceptions":[{"concept":"c"}],` + base + `}`, problems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ex := node, exam
			switch tt.name {
			case "signal of another node":
				n = exam.Node("intro")
			case "signal no node listens for":
				// Defined in the evidence list, listened for by no node.
				e := *exam
				e.Evidence = append(slices.Clone(exam.Evidence), spec.EvidenceDef{SignalType: "unheard", Description: "d", Levels: []string{"l1"}})
				ex = &e
			}
			o, probs, err := ParseObservation([]byte(tt.raw), n, ex)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(probs) != tt.problems {
				t.Fatalf("problems = %q, want %d", probs, tt.problems)
			}
			if tt.check != nil {
				tt.check(t, o)
			}
		})
	}
}

// FuzzParseObservation checks that whatever an examiner sends back, parsing never panics and
// what it accepts respects the schema's bounds.
func FuzzParseObservation(f *testing.F) {
	exam := basicExam(f)
	node := exam.Node("plan")
	for _, seed := range []string{
		`{"signals":[],"answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Go on."}`,
		`{"signals":[{"signalType":"names_risk","rubricLevel":"analysis","excerpt":"x","confidence":2}],"commandDetected":"skip","answerQuality":"substantive","needsFollowUp":true,"evidenceSufficient":true,"anxietyDetected":true,"spokenText":"Hi."}`,
		`{"signals":null}`, `[]`, `null`, `{"signals":[{"excerpt":"\u00e9\ud800"}]}`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, _, err := ParseObservation(raw, node, exam)
		if err != nil {
			return
		}
		if !o.AnswerQuality.Valid() {
			t.Fatalf("invalid answer quality accepted: %q", o.AnswerQuality)
		}
		if o.CommandDetected != "" && !o.CommandDetected.Valid() {
			t.Fatalf("invalid command accepted: %q", o.CommandDetected)
		}
		for _, s := range o.Signals {
			if s.Confidence < 0 || s.Confidence > 1 {
				t.Fatalf("confidence %v out of range", s.Confidence)
			}
			if utf8.RuneCountInString(s.Excerpt) > MaxExcerptRunes || !utf8.ValidString(s.Excerpt) {
				t.Fatalf("excerpt not capped or invalid: %q", s.Excerpt)
			}
			if !exam.ListenedFor(s.SignalType) {
				t.Fatalf("signal %q outside the exam's vocabulary accepted", s.SignalType)
			}
		}
	})
}

// FuzzScanPartialObject checks the streaming scanner on arbitrary (truncated) input: no panic,
// and every field it reports complete is valid JSON.
func FuzzScanPartialObject(f *testing.F) {
	full := `{"signals":[{"signalType":"names_risk","excerpt":"a \"q\" b","confidence":0.5}],"answerQuality":"partial","needsFollowUp":true,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"One. Two \u00e9? Three."}`
	for i := 0; i <= len(full); i += 9 {
		f.Add([]byte(full[:i]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, spoken, _, _ := scanPartialObject(b)
		for k, v := range fields {
			if !jsonValid(v) {
				t.Fatalf("field %q incomplete: %s", k, v)
			}
		}
		_ = spoken
	})
}

func compileEdited(t testing.TB, edit func(string) string) *spec.Exam {
	t.Helper()
	src, err := os.ReadFile("testdata/basic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exam, diags, err := spec.Compile("basic.yaml", []byte(edit(string(src))))
	if err != nil {
		t.Fatalf("%v\n%v", err, diags)
	}
	return exam
}

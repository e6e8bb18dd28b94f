package headless_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
)

func TestExampleRehearsal(t *testing.T) {
	s := loadExample(t, "hotel-rehearsal.yaml")
	r := runScript(t, s, headless.Options{})
	if !r.Passed {
		t.Fatalf("rehearsal failed:\n%s", report(r))
	}
	if disk := runFile(t, "../../examples/hotel-rehearsal.yaml"); !disk.Passed {
		t.Fatalf("rehearsal from disk failed:\n%s", report(disk))
	}
}

func TestScripts(t *testing.T) {
	for _, name := range []string{"silence", "off-topic", "low-confidence", "skip-allowed", "skip-refused", "distress", "finish-confirm", "admin", "pause-resume", "expiry", "silence-checkin", "pause-answer", "other-node-evidence"} {
		t.Run(name, func(t *testing.T) {
			r := runFile(t, "testdata/"+name+".yaml")
			if !r.Passed {
				t.Fatalf("%s failed:\n%s", name, report(r))
			}
			if r.TurnsRun == 0 || len(r.Log) == 0 {
				t.Fatalf("nothing ran: %+v", r)
			}
			// Every word the candidate said was assessed once, or marked with its reason.
			if err := runtimetest.CheckAssessedOnce(r.Log); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWrongExpectationFails(t *testing.T) {
	r := runFile(t, "testdata/wrong-expectation.yaml")
	if r.Passed {
		t.Fatal("a wrong script passed")
	}
	want := []string{
		"completed: expected true, got false (state in_progress)",
		"visits: expected [welcome, wrapup], got [welcome, scenario-hotel-breakfast]",
		"evidence.proposes_options: expected 2, got 0",
		"commands.repeat: expected 1, got 0",
	}
	var got []string
	for _, f := range r.Failures {
		got = append(got, f.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	text := report(r)
	for _, s := range append(want, "FAIL testdata/wrong-expectation.yaml", "failed expectations:") {
		if !strings.Contains(text, s) {
			t.Errorf("report lacks %q:\n%s", s, text)
		}
	}
}

func TestScriptErrorsArePositioned(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"unknown field", "spec: x.yaml\nturns:\n  - say: hi\n    shout: yes\n", []string{"bad.yaml:4:5:", "unknown field"}},
		{"two kinds in a turn", "spec: x.yaml\nturns:\n  - say: hi\n  - say: a\n    silence: 3\n", []string{"bad.yaml:4:", "turn 2: exactly one of"}},
		{"bad admin mode", "spec: x.yaml\nturns:\n  - admin: {mode: loud, text: hi}\n", []string{"bad.yaml:3:", "admin mode \"loud\""}},
		{"bad control", "spec: x.yaml\nturns:\n  - control: jump\n", []string{"bad.yaml:3:", "control \"jump\""}},
		{"bad confidence", "spec: x.yaml\nturns:\n  - say: hi\n    confidence: 1.5\n", []string{"bad.yaml:4:", "confidence must be 0..1"}},
		{"bad examiner", "spec: x.yaml\nexaminer: oracle\nturns:\n  - say: hi\n", []string{"bad.yaml:2:", "examiner \"oracle\""}},
		{"unknown guardrail", "spec: x.yaml\nturns:\n  - say: hi\nexpect:\n  guardrails: {politeness: 0}\n", []string{"bad.yaml:5:", "unknown guardrail \"politeness\""}},
		{"unknown command", "spec: x.yaml\nturns:\n  - say: hi\nexpect:\n  commands: {dance: 1}\n", []string{"unknown command \"dance\""}},
		{"unknown event", "spec: x.yaml\nturns:\n  - say: hi\nexpect:\n  events: {party: 1}\n", []string{"unknown event type \"party\""}},
		{"no turns", "spec: x.yaml\n", []string{"at least one turn"}},
		{"no spec", "turns:\n  - say: hi\n", []string{"spec is required"}},
		{"yaml syntax", "spec: [x\n", []string{"bad.yaml:"}},
		{"wrong type", "spec: x.yaml\nturns:\n  - silence: soon\n", []string{"bad.yaml:3:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := headless.ParseScript("bad.yaml", []byte(tt.src))
			if !errors.Is(err, headless.ErrScript) {
				t.Fatalf("err = %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestExpectationsCheckedAgainstExam(t *testing.T) {
	s, err := headless.ParseScript("testdata/x.yaml", []byte("spec: testdata/basic.yaml\nturns:\n  - say: hi\nexpect:\n  evidence: {telepathy: 1}\n  visits: [intro, nowhere]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = headless.Run(context.Background(), s, headless.Options{})
	if !errors.Is(err, headless.ErrExpectationSet) || !strings.Contains(err.Error(), `"telepathy" is not a signal`) ||
		!strings.Contains(err.Error(), "testdata/x.yaml:6:") {
		t.Fatalf("err = %v", err)
	}
}

func TestMissingSpecAndExaminer(t *testing.T) {
	s, err := headless.ParseScript("x.yaml", []byte("spec: testdata/none.yaml\nturns:\n  - say: hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headless.Run(context.Background(), s, headless.Options{}); !errors.Is(err, headless.ErrSpec) {
		t.Fatalf("missing spec: %v", err)
	}
	s, err = headless.ParseScript("x.yaml", []byte("spec: testdata/basic.yaml\nexaminer: llm\nturns:\n  - say: hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headless.Run(context.Background(), s, headless.Options{}); !errors.Is(err, headless.ErrExaminerKind) {
		t.Fatalf("llm without a factory: %v", err)
	}
	// The hook decides what "llm" means.
	called := ""
	_, err = headless.Run(context.Background(), s, headless.Options{NewExaminer: func(kind string) (runtime.Examiner, []runtime.Option, error) {
		called = kind
		return nil, nil, errors.New("no endpoint configured")
	}})
	if called != "llm" || err == nil || !strings.Contains(err.Error(), "no endpoint configured") {
		t.Fatalf("hook: called %q err %v", called, err)
	}
}

func TestRunSink(t *testing.T) {
	s := loadExample(t, "hotel-rehearsal.yaml")
	stored := &runtime.Recorder{}
	r := runScript(t, s, headless.Options{Sink: runtime.NewFanout(stored), SessionID: "rehearsal-1"})
	evs := stored.Events()
	if len(evs) != len(r.Log) || evs[0].SessionID != "rehearsal-1" {
		t.Fatalf("sink got %d events, run %d", len(evs), len(r.Log))
	}
	// A failing sink stops the run with an error instead of a silent partial log.
	_, err := headless.Run(context.Background(), s, headless.Options{Sink: brokenSink{}})
	if !errors.Is(err, runtime.ErrSink) {
		t.Fatalf("broken sink: %v", err)
	}
}

type brokenSink struct{}

func (brokenSink) Publish(runtime.Event) error { return errors.New("database is locked") }

func TestDeterministic(t *testing.T) {
	a := runFile(t, "testdata/admin.yaml")
	b := runFile(t, "testdata/admin.yaml")
	if len(a.Log) != len(b.Log) {
		t.Fatalf("%d vs %d events", len(a.Log), len(b.Log))
	}
	for i := range a.Log {
		if a.Log[i].Event == runtime.EventObservation {
			continue // carries measured latency
		}
		if string(a.Log[i].Payload) != string(b.Log[i].Payload) || !a.Log[i].Timestamp.Equal(b.Log[i].Timestamp) {
			t.Fatalf("event %d differs:\n%s\n%s", i, a.Log[i].Payload, b.Log[i].Payload)
		}
	}
}

func TestLatencyExpectation(t *testing.T) {
	// ParseScript leaves the spec path as written (relative to the working directory).
	s, err := headless.ParseScript("testdata/latency.yaml", []byte("spec: testdata/basic.yaml\nturns:\n  - say: \"My name is Ada.\"\nexpect:\n  maxTurnLatencyMs: 0.0001\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := runScript(t, s, headless.Options{})
	if r.Passed || len(r.Failures) != 1 || r.Failures[0].Expectation != "maxTurnLatencyMs" || !strings.HasPrefix(r.Failures[0].Expected, "<= 0.0001") {
		t.Fatalf("failures %+v", r.Failures)
	}
}

// TestScriptStart: a run's virtual clock starts at the real time unless the script pins it
// with start:, and a bad start is refused with its position.
func TestScriptStart(t *testing.T) {
	const body = "spec: basic.yaml\n%sturns:\n  - say: \"My name is Ada.\"\n"
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "basic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "basic.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	pinned := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name, start string
		want        func(before, after, got time.Time) bool
		wantErr     string
	}{
		{"unpinned", "", func(b, a, got time.Time) bool { return !got.Before(b.Truncate(time.Millisecond)) && !got.After(a) }, ""},
		{"pinned", "start: 2031-03-04T05:06:07Z\n", func(_, _, got time.Time) bool { return got.Equal(pinned) }, ""},
		{"pinned with offset", "start: \"2031-03-04T07:06:07+02:00\"\n", func(_, _, got time.Time) bool { return got.Equal(pinned) }, ""},
		{"bad", "start: next tuesday\n", nil, "script.yaml:2:8: start \"next tuesday\": want an RFC 3339 time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "script.yaml")
			if err := os.WriteFile(p, []byte(fmt.Sprintf(body, tt.start)), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := headless.LoadScript(p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadScript = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			r, err := headless.Run(context.Background(), s, headless.Options{})
			after := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Log[0].Timestamp; !tt.want(before, after, got) {
				t.Errorf("first event at %v (run between %v and %v)", got, before, after)
			}
		})
	}
}

// TestAbsoluteSpecPath: a script may name its spec by an absolute path (it was joined onto
// the script's folder and not found).
func TestAbsoluteSpecPath(t *testing.T) {
	spec, err := filepath.Abs("../../examples/hotel-breakfast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../examples/hotel-rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(src), "spec: hotel-breakfast.yaml", "spec: "+spec, 1)
	if body == string(src) {
		t.Fatal("the rehearsal script no longer names spec: hotel-breakfast.yaml")
	}
	p := filepath.Join(t.TempDir(), "elsewhere.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := headless.LoadScript(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.SpecPath() != spec {
		t.Fatalf("spec path %q, want %q", s.SpecPath(), spec)
	}
	if r := runFile(t, p); !r.Passed {
		t.Fatalf("run failed:\n%s", report(r))
	}
}

// TestScriptsKnowEveryGuardrail: a script may expect any guardrail the runtime can report
// (runtime.Guardrails is the one list; one_question and instruction_echo were once refused).
func TestScriptsKnowEveryGuardrail(t *testing.T) {
	for _, name := range runtime.GuardrailNames() {
		src := "spec: x.yaml\nturns:\n  - say: hi\nexpect:\n  guardrails: {" + name + ": 1}\n"
		if _, err := headless.ParseScript("ok.yaml", []byte(src)); err != nil {
			t.Errorf("expect.guardrails.%s: %v", name, err)
		}
	}
}

package runtime_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// speculationCase says what happens between the interim transcript and the final turn.
type speculationCase struct {
	name string
	// interim is the text speculated on for turn i ("" no speculation).
	interim func(i int, final string) string
	// between runs after the speculation and before SubmitTurn, in both runs (so the two runs
	// see the same state changes).
	between func(h *harness, i int)
	// reused is how many speculations SubmitTurn must have taken.
	reused int
}

// runSpeculated drives the demo exam through runtimetest.RehearsalAnswers and returns its
// events with the wall-clock measurements zeroed, the examiner's call count and the
// speculation counts.
func runSpeculated(t *testing.T, tc speculationCase, speculate bool) ([]string, int, runtime.SpeculationStats) {
	t.Helper()
	exam := runtimetest.DemoExam(t, nil)
	cap := &capturing{Examiner: newOffline(t)}
	h := newHarness(t, exam, cap)
	h.start()
	for i, text := range runtimetest.RehearsalAnswers {
		h.clock.Advance(2 * time.Second)
		turn := runtime.Turn{Text: text, Duration: time.Second, Confidence: 0.9, Source: runtime.SourceMic}
		if speculate && tc.interim != nil {
			if in := tc.interim(i, text); in != "" {
				st := turn
				st.Text = in
				if err := h.c.Speculate(h.ctx, st); err != nil {
					t.Fatal(err)
				}
			}
		}
		if tc.between != nil {
			tc.between(h, i)
		}
		if err := h.c.SubmitTurn(h.ctx, turn); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	cap.mu.Lock()
	calls := len(cap.reqs)
	cap.mu.Unlock()
	return normalizedEvents(t, h), calls, h.c.Speculations()
}

// wallClockFields are measured on the wall clock and differ between any two runs.
var wallClockFields = regexp.MustCompile(`"(\w*(Ms|Duration|Latency)\w*)":\s*-?[0-9.e+-]+`)

func normalizedEvents(t *testing.T, h *harness) []string {
	var out []string
	for _, ev := range h.rec.Events() {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wallClockFields.ReplaceAllString(string(b), `"$1":0`))
	}
	return out
}

// TestSpeculationNeverChangesADecision runs the same exam with and without speculation. The
// events are identical in every case; a speculation is reused only when the final text and the
// controller's state are those it was made for, and otherwise discarded (the examiner called
// again).
func TestSpeculationNeverChangesADecision(t *testing.T) {
	n := len(runtimetest.RehearsalAnswers)
	for _, tc := range []speculationCase{
		{name: "final matches", interim: func(_ int, final string) string { return final }, reused: n},
		{name: "final differs", interim: func(_ int, final string) string { return strings.TrimSuffix(final, ".") + " and" }},
		{name: "every other turn", interim: func(i int, final string) string {
			if i%2 == 0 {
				return final
			}
			return "Sorry, could you repeat the question?"
		}, reused: (n + 1) / 2},
		{name: "state changed: instruction queued", interim: func(_ int, final string) string { return final },
			between: func(h *harness, i int) {
				if i == 2 {
					if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Ask about cost.", Sender: "tester"}); err != nil {
						h.t.Fatal(err)
					}
				}
			}, reused: n - 1},
		{name: "state changed: time passed", interim: func(_ int, final string) string { return final },
			between: func(h *harness, i int) {
				if i == 1 {
					h.clock.Advance(5 * time.Second) // the status's time left differs
				}
			}, reused: n - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, plainCalls, none := runSpeculated(t, tc, false)
			spec, specCalls, stats := runSpeculated(t, tc, true)
			if none != (runtime.SpeculationStats{}) {
				t.Errorf("speculations without speculating: %+v", none)
			}
			if len(spec) != len(plain) {
				t.Fatalf("%d events with speculation, %d without", len(spec), len(plain))
			}
			for i := range plain {
				if spec[i] != plain[i] {
					t.Fatalf("event %d differs:\nwithout: %s\nwith:    %s", i, plain[i], spec[i])
				}
			}
			if stats.Reused != tc.reused || stats.Started != n || stats.Discarded != n-tc.reused {
				t.Errorf("speculations %+v, want %d reused of %d", stats, tc.reused, n)
			}
			// A reused speculation replaces the examiner call; a discarded one may have cost one
			// more (or been cancelled before it began: its goroutine is not waited for).
			if discarded := n - tc.reused; specCalls < plainCalls || specCalls > plainCalls+discarded || (discarded == 0 && specCalls != plainCalls) {
				t.Errorf("%d examiner calls, want %d to %d (%d without speculation)", specCalls, plainCalls, plainCalls+discarded, plainCalls)
			}
		})
	}
}

// A newer speculation replaces the older; CancelSpeculation and an invalid turn are handled.
func TestSpeculateReplacesAndCancels(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	h := newHarness(t, exam, newOffline(t))
	if err := h.c.Speculate(h.ctx, runtime.Turn{Text: "hello"}); err == nil {
		t.Error("speculation before Start accepted")
	}
	h.start()
	for _, text := range []string{"Hello, I'm", "Hello, I'm Priya."} {
		if err := h.c.Speculate(h.ctx, runtime.Turn{Text: text, Source: runtime.SourceMic, Confidence: 1}); err != nil {
			t.Fatal(err)
		}
	}
	h.c.CancelSpeculation()
	if got := h.c.Speculations(); got != (runtime.SpeculationStats{Started: 2, Discarded: 2}) {
		t.Errorf("after replace and cancel: %+v", got)
	}
	if err := h.c.Speculate(h.ctx, runtime.Turn{Text: "x", Confidence: 2}); err == nil {
		t.Error("invalid turn accepted")
	}
	if err := h.c.Speculate(h.ctx, runtime.Turn{Text: "  "}); err != nil || h.c.Speculations().Started != 2 {
		t.Errorf("silence speculated: %v %+v", err, h.c.Speculations())
	}
	h.say("Hello, I'm Priya.")
	if got := h.c.Speculations(); got.Reused != 0 {
		t.Errorf("a cancelled speculation was reused: %+v", got)
	}
}

package runtime_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// sttOutcome is what the gate decided about names_risk on one turn: "accepted" with the
// summary of the cited segments, "rejected", or "" (no decision on that turn).
type sttOutcome struct {
	verdict string
	summary runtime.STTSummary
}

// gateOutcomes reads the gate's decisions about names_risk from the events, in order.
func gateOutcomes(t testing.TB, events []runtime.Event) []sttOutcome {
	t.Helper()
	var out []sttOutcome
	for _, p := range runtimetest.Payloads[runtime.Payload](t, events) {
		switch p := p.(type) {
		case *runtime.EvidenceUpdatePayload:
			if p.SignalType == "names_risk" {
				out = append(out, sttOutcome{"accepted", p.STTConfidence})
			}
		case *runtime.RecoveryPayload:
			if p.Kind == runtime.RecoveryLowConfidence && p.SignalType == "names_risk" {
				out = append(out, sttOutcome{verdict: "rejected"})
			}
		}
	}
	return out
}

// TestSTTGateClearRepeat: with the offline examiner, an answer said at low STT confidence is
// rejected, and the same words said again clearly are accepted: one clear hearing of the
// excerpt is enough (EVD-010 judged per cited segment). A doubtful repeat is still rejected.
// The accepted signal keeps the summary of both cited segments.
func TestSTTGateClearRepeat(t *testing.T) {
	const answer = "The risk is that nothing was tested."
	tests := []struct {
		name  string
		confs []float64
		want  []sttOutcome
	}{
		{"clear repeat after a doubtful attempt", []float64{0.3, 1},
			[]sttOutcome{{verdict: "rejected"}, {"accepted", runtime.STTSummary{Min: 0.3, Max: 1, Mean: 0.65}}}},
		{"doubtful repeat", []float64{0.3, 0.4}, []sttOutcome{{verdict: "rejected"}, {verdict: "rejected"}}},
		{"at the threshold", []float64{0.5}, []sttOutcome{{"accepted", runtime.STTSummary{Min: 0.5, Max: 0.5, Mean: 0.5}}}},
		{"clear at once", []float64{0.9}, []sttOutcome{{"accepted", runtime.STTSummary{Min: 0.9, Max: 0.9, Mean: 0.9}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, compileTestExam(t, "basic.yaml", nil), newOffline(t))
			h.start()
			h.say("My name is Ada.")
			if n := h.c.Snapshot().NodeID; n != "plan" {
				t.Fatalf("node %q after the name, want plan", n)
			}
			for _, c := range tt.confs {
				h.sayConf(answer, c)
			}
			if got := gateOutcomes(t, h.rec.Events()); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("gate decisions\n got %v\nwant %v", got, tt.want)
			}
			var ledger []runtime.STTSummary
			for _, e := range h.c.Snapshot().Ledger {
				if e.SignalType == "names_risk" {
					ledger = append(ledger, e.STTConfidence)
				}
			}
			if last := tt.want[len(tt.want)-1]; last.verdict == "accepted" {
				if len(ledger) != 1 || ledger[0] != last.summary {
					t.Fatalf("ledger summaries %v, want [%v]", ledger, last.summary)
				}
			} else if len(ledger) != 0 {
				t.Fatalf("ledger holds rejected evidence: %v", ledger)
			}
		})
	}
}

// TestSTTGateCitedSegments drives the examiner's excerpt precisely: which segments a signal
// cites, and what the gate judges, when the excerpt is held whole by a segment, joins two turns,
// or matches none (a paraphrase: the current turn's segment is cited).
func TestSTTGateCitedSegments(t *testing.T) {
	type turn struct {
		text    string
		conf    float64
		excerpt string // names_risk's excerpt on this turn; "" reports no signal
	}
	tests := []struct {
		name  string
		turns []turn
		want  []sttOutcome
	}{
		{"excerpt inside a doubtful and a clear longer segment", []turn{
			{"It was never tested.", 0.3, "it was never tested"},
			{"Again: it was never tested.", 0.9, "it was never tested"}},
			[]sttOutcome{{verdict: "rejected"}, {"accepted", runtime.STTSummary{Min: 0.3, Max: 0.9, Mean: 0.6}}}},
		{"paraphrase cites the current turn only", []turn{
			{"It was never tested.", 0.3, "nobody checked the move"},
			{"Yes, that.", 0.9, "nobody checked the move"}},
			[]sttOutcome{{verdict: "rejected"}, {"accepted", runtime.STTSummary{Min: 0.9, Max: 0.9, Mean: 0.9}}}},
		{"excerpt joining two clear turns", []turn{
			{"The move is risky", 1, ""},
			{"because nobody tested it.", 0.5, "the move is risky because nobody tested it"}},
			[]sttOutcome{{"accepted", runtime.STTSummary{Min: 0.5, Max: 1, Mean: 0.75}}}},
		{"excerpt joining a doubtful turn", []turn{
			{"The move is risky", 0.3, ""},
			{"because nobody tested it.", 0.9, "the move is risky because nobody tested it"}},
			[]sttOutcome{{verdict: "rejected"}}},
		{"excerpt joining turns, the doubtful one repeated clearly", []turn{
			{"The move is risky", 0.25, ""},
			{"The move is risky", 1, ""},
			{"because nobody tested it.", 1, "the move is risky because nobody tested it"}},
			[]sttOutcome{{"accepted", runtime.STTSummary{Min: 0.25, Max: 1, Mean: 0.75}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			for _, tu := range tt.turns {
				a := runtimetest.Args{AnswerQuality: "partial", SpokenText: "Go on."}
				if tu.excerpt != "" {
					a.Signals = []runtime.Signal{sig("names_risk", tu.excerpt)}
				}
				ex.push(a.String())
				h.sayConf(tu.text, tu.conf)
			}
			if got := gateOutcomes(t, h.rec.Events()); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("gate decisions\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestSTTGateAfterResume: a controller resumed between a doubtful attempt and its clear repeat
// rebuilds the node's segments from the log and gates the repeat as the live one does: the
// decision traces of the resumed and the uninterrupted run are equal, and both accept.
func TestSTTGateAfterResume(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", nil)
	const answer = "The risk is that nothing was tested."
	run := func(resume bool) []string {
		h := newHarness(t, exam, newOffline(t))
		h.start()
		h.say("My name is Ada.")
		h.sayConf(answer, 0.3)
		if resume {
			_ = h.c.Close()
			h.clock.Advance(time.Hour)
			c, err := runtime.NewController(exam, newOffline(t), runtime.WithClock(h.clock),
				runtime.WithSink(runtime.NewFanout(h.rec)), runtime.WithResume(h.rec.Events()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			if err := c.Start(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.c = c
		}
		h.sayConf(answer, 1)
		want := []sttOutcome{{verdict: "rejected"}, {"accepted", runtime.STTSummary{Min: 0.3, Max: 1, Mean: 0.65}}}
		if got := gateOutcomes(t, h.rec.Events()); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("resume %t: gate decisions\n got %v\nwant %v", resume, got, want)
		}
		tr, err := runtime.DecisionTrace(h.rec.Events())
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	live, resumed := run(false), run(true)
	if d := runtime.TraceDiff(live, resumed); d != "" {
		t.Fatalf("the resumed run decided otherwise:\n%s", d)
	}
}

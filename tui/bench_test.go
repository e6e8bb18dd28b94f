package tui

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// Size of the large session: about two hours of exam.
const (
	largeSegments   = 10000 // transcript segments: candidate and examiner turns
	largeEvidence   = 2000
	largeGuardrails = 300
	largeNodes      = 20
)

// sessionSize is how much a generated session holds.
type sessionSize struct{ segments, evidence, guardrails, nodes int }

// twoHours is about two hours of exam: 10,000 transcript segments, 2,000 evidence entries.
var twoHours = sessionSize{largeSegments, largeEvidence, largeGuardrails, largeNodes}

// genSession produces a session of the given size one event at a time, as the runtime would,
// so what a consumer keeps in memory is its own state and not an event slice.
func genSession(size sessionSize, emitEvent func(runtime.Event)) error {
	now := fixtureStart
	var seq int64
	var failed error
	emit := func(d time.Duration, p runtime.Payload) {
		now = now.Add(d)
		seq++
		ev, err := runtime.NewEvent("s-large", seq, now, p)
		if err != nil {
			failed = errors.Join(failed, err)
			return
		}
		emitEvent(ev)
	}
	nodes := make([]string, size.nodes)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%02d", i+1)
	}
	emit(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: nodes, TotalTimeBudgetSec: 7200})
	turns := size.segments / 2
	perNode := max(turns/size.nodes, 1)
	evidenceEvery, guardEvery := max(turns/max(size.evidence, 1), 1), max(turns/max(size.guardrails, 1), 1)
	evidence, guards := 0, 0
	for i := 0; i < turns; i++ {
		node := nodes[min(i/perNode, size.nodes-1)]
		if i%perNode == 0 && i/perNode < size.nodes {
			emit(0, &runtime.NodeEnteredPayload{NodeID: node, Kind: "assessment", MaxFollowUps: 3, TimeBudgetSec: 360,
				Progress: runtime.Progress{CurrentNodeIndex: i/perNode + 1, TotalNodes: size.nodes}, RequiredEvidenceCount: 4})
		}
		emit(700*time.Millisecond, &runtime.TranscriptSegmentPayload{SegmentID: fmt.Sprint("c", i), NodeID: node, Speaker: "candidate",
			Text: fmt.Sprintf("Answer %d: I would balance the buffet against an a la carte menu, because the guests on weekdays "+
				"are business travellers in a hurry while families at weekends want variety and a calmer pace.", i),
			Confidence: 0.4 + float64(i%60)/100, IsFinal: true, Source: "mic"})
		emit(300*time.Millisecond, &runtime.ObservationPayload{NodeID: node, Turn: i + 1, Examiner: "offline", Valid: true,
			Raw:      rawJSON(map[string]any{"answerQuality": "substantive", "signals": []any{map[string]any{"signalType": "proposes_options", "confidence": 0.8, "excerpt": "balance the buffet"}}}),
			Decision: runtime.Decision{Action: "continue", Trace: []runtime.DecisionStep{{Rule: "command"}, {Rule: "continue", Fired: true}}},
			Latency:  runtime.Latency{STTMs: 300, LLMCompleteMs: 600, TotalMs: 950}})
		for evidence < size.evidence && (i%evidenceEvery == 0 || i == turns-1) {
			evidence++
			emit(0, &runtime.EvidenceUpdatePayload{NodeID: node, SignalType: "proposes_options", RubricLevel: "analysis",
				Excerpt: "balance the buffet against an a la carte menu", Confidence: 0.8, Accepted: evidence % 5, Required: 4})
			if i != turns-1 {
				break
			}
		}
		if guards < size.guardrails && i%guardEvery == 0 {
			guards++
			emit(0, &runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: node, Action: "replace",
				OriginalText: "That shows analysis level thinking.", ReplacementText: "Thank you. Please go on."})
		}
		emit(500*time.Millisecond, &runtime.SpokenPayload{NodeID: node, Source: "examiner",
			Text: fmt.Sprintf("Thank you. Follow-up %d: how would that change if the budget were cut by a fifth?", i)})
	}
	return failed
}

// loadLargeSession feeds a 2-hour session into m one event at a time, as the bridge would.
func loadLargeSession(tb testing.TB, m *Model) {
	tb.Helper()
	loadSession(tb, m, twoHours)
}

func loadSession(tb testing.TB, m *Model, size sessionSize) {
	tb.Helper()
	if err := genSession(size, func(ev runtime.Event) { m.Apply(ev) }); err != nil {
		tb.Fatal(err)
	}
	if len(transcriptOf(m).turns) < size.segments || evidenceOf(m).total != size.evidence {
		tb.Fatalf("session has %d turns and %d evidence, want %d and %d", len(transcriptOf(m).turns), evidenceOf(m).total,
			size.segments, size.evidence)
	}
}

func largeModel(tb testing.TB, w, h int) *Model {
	tb.Helper()
	m, err := New(hotelInfo, &fakeBackend{}, WithDarkBackground(true), WithEventClock(), WithTickInterval(0))
	if err != nil {
		tb.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	loadLargeSession(tb, m)
	return m
}

// BenchmarkRenderFrameLargeSession renders one frame of a 2-hour session. The first frame
// wraps the visible turns; later frames reuse the cache, as a live console does.
func BenchmarkRenderFrameLargeSession(b *testing.B) {
	for _, sz := range goldenSizes {
		for _, mode := range []string{"tail", "scrolled", "debug"} {
			b.Run(fmt.Sprintf("%dx%d/%s", sz.w, sz.h, mode), func(b *testing.B) {
				m := largeModel(b, sz.w, sz.h)
				switch mode {
				case "scrolled":
					// Halfway back through the session: the walk to get there is part of the cost.
					transcriptOf(m).scroll.up(largeSegments)
					evidenceOf(m).scroll.up(largeEvidence)
				case "debug":
					m.Update(ctrl('r'))
				}
				m.Render()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					_ = m.Render()
				}
			})
		}
	}
}

// BenchmarkRenderFrameAfterResize is the worst frame: every visible block wrapped afresh.
func BenchmarkRenderFrameAfterResize(b *testing.B) {
	m := largeModel(b, 200, 60)
	w := 200
	b.ReportAllocs()
	for b.Loop() {
		w = 399 - w // alternate 200 and 199 columns so every frame re-wraps
		m.Update(tea.WindowSizeMsg{Width: w, Height: 60})
		_ = m.Render()
	}
}

// heapAfterLoad returns the heap in use by a loaded large session, in bytes.
func heapAfterLoad(tb testing.TB) (heap, sys uint64, m *Model) {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	m = largeModel(tb, 200, 60)
	m.Render()
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	return after.HeapInuse - min(before.HeapInuse, after.HeapInuse), after.Sys, m
}

// TestLargeSessionMemory holds the console's memory for a 2-hour session under budget.
func TestLargeSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Log("short mode: loading the large session anyway; it takes about a second")
	}
	const budget = 150 << 20
	heap, sys, m := heapAfterLoad(t)
	t.Logf("large session: heap in use %.1f MiB, runtime Sys %.1f MiB", float64(heap)/(1<<20), float64(sys)/(1<<20))
	if heap > budget || sys > budget {
		t.Errorf("heap %d B / sys %d B over the %d B budget", heap, sys, budget)
	}
	goruntime.KeepAlive(m)
}

// BenchmarkLargeSessionHeap reports the heap in use after loading the session.
func BenchmarkLargeSessionHeap(b *testing.B) {
	var heap uint64
	for b.Loop() {
		h, _, m := heapAfterLoad(b)
		heap = h
		goruntime.KeepAlive(m)
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}

// BenchmarkRenderFrameBySessionLength renders a 120×40 frame of sessions from a quarter hour
// to eight hours: the cost stays flat because a frame walks only the visible blocks.
func BenchmarkRenderFrameBySessionLength(b *testing.B) {
	for _, f := range []struct {
		name string
		div  int // fraction of two hours …
		mul  int // … or multiple of it
	}{{"15min", 8, 1}, {"1h", 2, 1}, {"2h", 1, 1}, {"8h", 1, 4}} {
		b.Run(f.name, func(b *testing.B) {
			size := sessionSize{twoHours.segments * f.mul / f.div, twoHours.evidence * f.mul / f.div,
				twoHours.guardrails * f.mul / f.div, twoHours.nodes}
			m, err := New(hotelInfo, &fakeBackend{}, WithDarkBackground(true), WithEventClock(), WithTickInterval(0))
			if err != nil {
				b.Fatal(err)
			}
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			loadSession(b, m, size)
			m.Render()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = m.Render()
			}
		})
	}
}

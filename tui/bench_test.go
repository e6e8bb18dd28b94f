package tui

import (
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

// loadLargeSession feeds a 2-hour session into m one event at a time, as the bridge would, so
// what stays in memory is the console's own state and not the event slice.
func loadLargeSession(tb testing.TB, m *Model) {
	tb.Helper()
	start := fixtureStart
	var seq int64
	now := start
	emit := func(d time.Duration, p runtime.Payload) {
		now = now.Add(d)
		seq++
		ev, err := runtime.NewEvent("s-large", seq, now, p)
		if err != nil {
			tb.Fatal(err)
		}
		m.Apply(ev)
	}
	nodes := make([]string, largeNodes)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%02d", i+1)
	}
	emit(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: nodes, TotalTimeBudgetSec: 7200})
	turns := largeSegments / 2
	perNode := turns / largeNodes
	evidence, guards := 0, 0
	for i := 0; i < turns; i++ {
		node := nodes[min(i/perNode, largeNodes-1)]
		if i%perNode == 0 {
			emit(0, &runtime.NodeEnteredPayload{NodeID: node, Kind: "assessment", MaxFollowUps: 3, TimeBudgetSec: 360,
				Progress: runtime.Progress{CurrentNodeIndex: i/perNode + 1, TotalNodes: largeNodes}, RequiredEvidenceCount: 4})
		}
		emit(700*time.Millisecond, &runtime.TranscriptSegmentPayload{SegmentID: fmt.Sprint("c", i), NodeID: node, Speaker: "candidate",
			Text: fmt.Sprintf("Answer %d: I would balance the buffet against an a la carte menu, because the guests on weekdays "+
				"are business travellers in a hurry while families at weekends want variety and a calmer pace.", i),
			Confidence: 0.4 + float64(i%60)/100, IsFinal: true, Source: "mic"})
		emit(300*time.Millisecond, &runtime.ObservationPayload{NodeID: node, Turn: i + 1, Examiner: "offline", Valid: true,
			Raw:      rawJSON(map[string]any{"answerQuality": "substantive", "signals": []any{map[string]any{"signalType": "proposes_options", "confidence": 0.8, "excerpt": "balance the buffet"}}}),
			Decision: runtime.Decision{Action: "continue", Trace: []runtime.DecisionStep{{Rule: "command"}, {Rule: "continue", Fired: true}}},
			Latency:  runtime.Latency{STTMs: 300, LLMCompleteMs: 600, TotalMs: 950}})
		if evidence < largeEvidence && i%(turns/largeEvidence) == 0 {
			evidence++
			emit(0, &runtime.EvidenceUpdatePayload{NodeID: node, SignalType: "proposes_options", RubricLevel: "analysis",
				Excerpt: "balance the buffet against an a la carte menu", Confidence: 0.8, Accepted: evidence % 5, Required: 4})
		}
		if guards < largeGuardrails && i%(turns/largeGuardrails) == 0 {
			guards++
			emit(0, &runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: node, Action: "replace",
				OriginalText: "That shows analysis level thinking.", ReplacementText: "Thank you. Please go on."})
		}
		emit(500*time.Millisecond, &runtime.SpokenPayload{NodeID: node, Source: "examiner",
			Text: fmt.Sprintf("Thank you. Follow-up %d: how would that change if the budget were cut by a fifth?", i)})
	}
	if len(m.transcript.turns) < largeSegments || m.evidence.total != largeEvidence {
		tb.Fatalf("large session has %d turns and %d evidence", len(m.transcript.turns), m.evidence.total)
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
					m.transcript.scroll.up(largeSegments)
					m.evidence.scroll.up(largeEvidence)
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

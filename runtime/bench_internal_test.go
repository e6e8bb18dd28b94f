package runtime

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is this OS thread's CPU time: unlike wall time it does not count the time the
// thread waits for a core, so the percentiles stay meaningful on a loaded machine.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

type fixedExaminer struct{ args json.RawMessage }

func (fixedExaminer) Name() string { return "fixed" }
func (f fixedExaminer) Observe(context.Context, *ExaminerRequest) (*ExaminerReply, error) {
	return &ExaminerReply{Arguments: f.args}, nil
}

// observationBench is a controller in "plan" of the basic exam, with a long-enough budget that
// the benchmark loop stays in the node, and a realistic reply: two valid signals and one
// unknown one, and a leading question for the filters to rewrite.
func observationBench(b *testing.B) (*Controller, *ExaminerReply, segment) {
	exam := compileEdited(b, func(s string) string { return s })
	args := json.RawMessage(`{"signals":[{"signalType":"names_risk","rubricLevel":"analysis","excerpt":"nothing has been tested, which is a risk","confidence":0.8},
		{"signalType":"explains_reasoning","excerpt":"because the weekend is short","confidence":0.7},{"signalType":"telepathy","excerpt":"x","confidence":1}],
		"answerQuality":"substantive","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"distressDetected":false,
		"rapportMove":"none","dialogueMove":"none",
		"spokenText":"That is one view. Don't you think the servers should be tested before the weekend? What would you check first?"}`)
	clock := NewVirtualClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	c, err := NewController(exam, fixedExaminer{args}, WithClock(clock))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	c.mu.Lock()
	c.enterNode(c.clock.Now(), "plan", "intro", "test")
	seg := segment{id: "seg-x", norm: normalizeWords("Nothing has been tested, which is a risk, because the weekend is short."), confidence: 0.9}
	c.segments = append(c.segments, seg)
	c.mu.Unlock()
	return c, &ExaminerReply{Arguments: args, Complete: time.Millisecond}, seg
}

// sampled runs op b.N times, timing each call, and reports the p50 and p99 of wall time and
// of the thread's CPU time (the wall figures include waiting for a core on a shared machine).
func sampled(b *testing.B, op func(i int)) {
	samples := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, cstart := time.Now(), threadCPU()
		op(i)
		samples = append(samples, time.Since(start))
		cpu = append(cpu, threadCPU()-cstart)
	}
	b.StopTimer()
	slices.Sort(samples)
	slices.Sort(cpu)
	q := func(d []time.Duration, p float64) float64 {
		return float64(d[int(p*float64(len(d)-1))].Nanoseconds()) / 1000
	}
	b.ReportMetric(q(samples, 0.50), "p50-µs")
	b.ReportMetric(q(samples, 0.99), "p99-µs")
	b.ReportMetric(q(cpu, 0.50), "cpu-p50-µs")
	b.ReportMetric(q(cpu, 0.99), "cpu-p99-µs")
}

// BenchmarkObservation measures one observation through decision steps 1–6 as the brief
// defines them: validation, output filters, ledger and guardrails, with no I/O and no events.
func BenchmarkObservation(b *testing.B) {
	c, reply, seg := observationBench(b)
	nf := c.filters["plan"]
	c.mu.Lock()
	defer c.mu.Unlock()
	sampled(b, func(i int) {
		obs, _, err := ParseObservation(reply.Arguments, c.node, c.exam)
		if err != nil {
			b.Fatal(err)
		}
		p := c.plan(&turnInput{turn: i, gen: c.nodeGen, seg: seg, reply: reply, stream: &streamState{}}, obs, nf)
		if p.dec.Action != DecisionContinue || len(p.accepted) != 2 || len(p.hits) != 1 {
			b.Fatalf("unexpected plan %+v", p.dec)
		}
	})
}

// BenchmarkObservationTurn measures the whole decision of one turn: BenchmarkObservation's
// steps plus carrying the plan out — ledger writes, the context, and encoding every event
// (observation, guardrail, evidence, spoken, transcript) into envelopes, still without I/O.
func BenchmarkObservationTurn(b *testing.B) {
	c, reply, seg := observationBench(b)
	sampled(b, func(i int) {
		in := &turnInput{turn: i, gen: c.nodeGen, text: "Nothing has been tested, which is a risk, because the weekend is short.",
			seg: seg, reply: reply, stream: &streamState{}}
		c.mu.Lock()
		c.decide(in)
		c.mu.Unlock()
	})
	if c.node.NodeID != "plan" {
		b.Fatalf("left the node: %s", c.node.NodeID)
	}
}

// BenchmarkLongExam runs a 1,000-turn exam in one node per operation and reports how much the
// live heap grew between turn 100 and turn 1,000 (flat memory: the context is summarised, the
// segments and the summary are capped).
func BenchmarkLongExam(b *testing.B) {
	exam, args := longTurns(b)
	heap := func() int64 {
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	var growth int64
	b.ReportAllocs()
	for b.Loop() {
		c, clock := startLong(b, exam, args)
		ctx := context.Background()
		var at100 int64
		for i := range 1000 {
			clock.Advance(3 * time.Second)
			if err := c.SubmitTurn(ctx, Turn{Text: "Turn " + strconv.Itoa(i) + ": the servers could fail during the move, which is a risk."}); err != nil {
				b.Fatal(err)
			}
			if i == 99 {
				b.StopTimer()
				at100 = heap()
				b.StartTimer()
			}
		}
		b.StopTimer()
		growth = max(growth, heap()-at100)
		b.StartTimer()
	}
	b.ReportMetric(float64(growth), "heap-growth-B")
}

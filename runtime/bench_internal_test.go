package runtime

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"slices"
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

// BenchmarkObservation measures decision steps 1–6 for one observation: validation, output
// filters, ledger, guardrails and event encoding, with no I/O and no examiner call. It reports
// the p50 and p99 of per-observation times sampled over the run, both wall time and the
// thread's CPU time (the wall figures include waiting for a core on a shared machine).
func BenchmarkObservation(b *testing.B) {
	exam := compileEdited(b, func(s string) string { return s })
	// Stay in "plan": a long budget, and the examiner never asks to move on.
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
	c.enterNode("plan", "intro", "test")
	c.mu.Unlock()
	seg := segment{id: "seg-x", norm: normalizeWords("Nothing has been tested, which is a risk, because the weekend is short."), confidence: 0.9}
	c.segments = append(c.segments, seg)
	reply := &ExaminerReply{Arguments: args, Complete: time.Millisecond}
	samples := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := &turnInput{turn: i, gen: c.nodeGen, text: "Nothing has been tested, which is a risk, because the weekend is short.",
			seg: seg, reply: reply, stream: &streamState{}}
		start, cstart := time.Now(), threadCPU()
		c.mu.Lock()
		c.decide(in)
		c.mu.Unlock()
		samples = append(samples, time.Since(start))
		cpu = append(cpu, threadCPU()-cstart)
	}
	b.StopTimer()
	if c.node.NodeID != "plan" {
		b.Fatalf("left the node: %s", c.node.NodeID)
	}
	slices.Sort(samples)
	slices.Sort(cpu)
	q := func(d []time.Duration, p float64) float64 { return float64(d[int(p*float64(len(d)-1))].Nanoseconds()) / 1000 }
	b.ReportMetric(q(samples, 0.50), "p50-µs")
	b.ReportMetric(q(samples, 0.99), "p99-µs")
	b.ReportMetric(q(cpu, 0.50), "cpu-p50-µs")
	b.ReportMetric(q(cpu, 0.99), "cpu-p99-µs")
}

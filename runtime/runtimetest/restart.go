package runtimetest

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
)

// Restarted runs the demo exam with the offline examiner on a virtual clock from start:
// the candidate answers the welcome, the node that follows runs 20 s, then the exam's process
// stops and a new controller resumes the stored events downtime later and runs for after. It
// returns every event of the session, the resumed controller's snapshot at the end, and that
// instant, so a reader of the event stream can be checked against the runtime's own clocks.
func Restarted(t testing.TB, start time.Time, downtime, after time.Duration) ([]runtime.Event, runtime.Snapshot, time.Time) {
	t.Helper()
	newExaminer := func() runtime.Examiner {
		ex, err := offline.New()
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}
	ctx := context.Background()
	exam := DemoExam(t, nil)
	clock := runtime.NewVirtualClock(start)
	rec := &runtime.Recorder{}
	c, err := runtime.NewController(exam, newExaminer(), runtime.WithClock(clock), runtime.WithSink(runtime.NewFanout(rec)))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Second)
	if err := c.SubmitTurn(ctx, runtime.Turn{Text: RehearsalAnswers[0], Source: runtime.SourceTyped}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(20 * time.Second)
	c.Close()
	events := rec.Events()

	clock2 := runtime.NewVirtualClock(clock.Now().Add(downtime))
	rec2 := &runtime.Recorder{}
	c2, err := runtime.NewController(exam, newExaminer(), runtime.WithClock(clock2), runtime.WithSink(runtime.NewFanout(rec2)),
		runtime.WithResume(events))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := c2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	clock2.Advance(after)
	return append(events, rec2.Events()...), c2.Snapshot(), clock2.Now()
}

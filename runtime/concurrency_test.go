package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestConcurrentUse drives one controller from several goroutines at once (turns, ticks,
// snapshots, admin instructions, pause and resume), as the console, the audio layer and the
// LiveKit bridge do. Run with -race; the event stream must stay gap-free.
func TestConcurrentUse(t *testing.T) {
	ex := loopExaminer{stream: 11, args: json.RawMessage(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "nothing is tested")},
		SpokenText: "I see. What else about the servers? Go on."}.String())}
	h := newHarness(t, longExam(t), ex)
	h.start()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	ok := func(err error) bool {
		return err == nil || errors.Is(err, runtime.ErrExamOver) || errors.Is(err, runtime.ErrInvalidTransition) || errors.Is(err, runtime.ErrPaused)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 60; {
			err := h.c.SubmitTurn(ctx, runtime.Turn{Text: fmt.Sprintf("Answer %d: the servers are a risk because nothing is tested.", i)})
			switch {
			case errors.Is(err, runtime.ErrPaused):
				time.Sleep(100 * time.Microsecond) // the proctor paused: wait and say it again
			case !ok(err):
				errs <- err
				return
			default:
				i++
			}
		}
	}()
	spin := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := f(); !ok(err) {
					errs <- err
					return
				}
			}
		}()
	}
	spin(func() error { h.clock.Advance(100 * time.Millisecond); return h.c.Tick(ctx) })
	spin(func() error { _ = h.c.Snapshot(); return nil })
	spin(func() error {
		time.Sleep(time.Millisecond)
		return h.c.Admin(ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Keep going.", Sender: "proctor"})
	})
	spin(func() error {
		time.Sleep(2 * time.Millisecond)
		if err := h.c.Control(ctx, runtime.ControlPause, "proctor"); !ok(err) {
			return err
		}
		return h.c.Control(ctx, runtime.ControlResume, "proctor")
	})
	// Let the turns finish, then stop the spinners.
	deadline := time.After(30 * time.Second)
	for h.c.Snapshot().Turn < 60 {
		select {
		case err := <-errs:
			cancel()
			t.Fatal(err)
		case <-deadline:
			cancel()
			t.Fatalf("turns did not finish: %+v", h.c.Snapshot())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
	h.checkSeq()
}

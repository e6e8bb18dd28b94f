package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/examtui/examtui/transport/livekit/agent"
)

// stopTimeout bounds how long stopped exams may take to close their sessions.
const stopTimeout = 30 * time.Second

// Drain stops a worker taking new exams and lets its running exams finish for at most timeout
// (or until now fires: a second signal), then stops the rest, resumable. Exams still waiting
// for their candidate stop at once.
func Drain(w *agent.Worker, r *Runner, timeout time.Duration, now <-chan struct{}, log *slog.Logger) {
	log.Info("draining: no new exams", "running", w.RunningJobs(), "timeout", timeout)
	w.SetDraining(true)
	if n := r.StopWaiting(); n > 0 {
		log.Info("draining: stopped the exams still waiting for their candidate (resumable)", "stopped", n)
	}
	dctx, cancel := context.WithTimeout(context.Background(), timeout)
	go func() {
		select {
		case <-now:
			log.Warn("second signal: stopping every exam now")
			cancel()
		case <-dctx.Done():
		}
	}()
	if err := w.WaitJobs(dctx); err != nil {
		log.Warn("drain timeout: stopping the running exams (resumable)", "running", w.RunningJobs())
	}
	cancel()
	w.StopJobs()
	sctx, scancel := context.WithTimeout(context.Background(), stopTimeout)
	defer scancel()
	if err := w.WaitJobs(sctx); err != nil {
		log.Error("exams did not stop", "running", w.RunningJobs())
	}
}

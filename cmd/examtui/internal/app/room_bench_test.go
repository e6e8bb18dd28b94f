package app_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	rt "github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConcurrentRoomExams runs n whole exams at once in one process, as `examtui run
// --room` would run them: each an exam bot (app.Open with its own session store, the offline
// examiner, espeak-ng speaking into the bot's track in real time) in its own room, with a
// typed candidate answering the rehearsal script and waiting for each spoken reply to finish.
// The candidates run in the same process but do not subscribe to audio, so the process's CPU
// is the bots' (the LiveKit server is a separate process). One op is one round of n exams.
// It reports how many completed, the process's CPU (cpu-%: 100 is one core), per exam, the
// LiveKit server's CPU over the same time, and the wall time of a round.
func BenchmarkConcurrentRoomExams(b *testing.B) {
	for _, n := range []int{1, 20} {
		b.Run(fmt.Sprintf("exams=%d", n), func(b *testing.B) { benchRoomExams(b, n) })
	}
}

func benchRoomExams(b *testing.B, n int) {
	srv := lktest.Start(b)
	script := apptest.Rehearsal(b)
	espeak, err := audio.NewEspeak()
	if err != nil {
		b.Fatal(err)
	}
	var completed, failed atomic.Int64
	var cpu, srvCPU, wall time.Duration
	goroutines := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		round := make([]*roomExam, n)
		for j := range round {
			round[j] = openRoomExam(b, srv, fmt.Sprintf("bench-%d-%d", i, j), espeak)
		}
		b.StartTimer()
		cpu0, srv0, wall0 := cpuTime(), srv.CPUTime(), time.Now()
		var wg sync.WaitGroup
		for _, e := range round {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := e.play(script.Said()); err != nil {
					b.Log(err)
					failed.Add(1)
					return
				}
				completed.Add(1)
			}()
		}
		// Sample the goroutines while every exam is running.
		time.Sleep(5 * time.Second)
		goroutines = runtime.NumGoroutine()
		wg.Wait()
		cpu += cpuTime() - cpu0
		srvCPU += srv.CPUTime() - srv0
		wall += time.Since(wall0)
		b.StopTimer()
		for _, e := range round {
			e.close()
		}
		b.StartTimer()
	}
	b.StopTimer()
	if failed.Load() > 0 {
		b.Errorf("%d of %d exams did not complete", failed.Load(), int64(n*b.N))
	}
	b.ReportMetric(float64(completed.Load())/float64(b.N), "completed")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds()/float64(n), "cpu-%/exam")
	b.ReportMetric(100*srvCPU.Seconds()/wall.Seconds(), "server-cpu-%")
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/round")
	b.ReportMetric(float64(goroutines), "goroutines")
}

// roomExam is one exam bot and its typed candidate.
type roomExam struct {
	b    *testing.B
	x    *app.Exam
	rb   *app.RoomBot
	cand *livekit.Client
}

func openRoomExam(b *testing.B, srv *lktest.Server, room string, synth audio.Synthesizer) *roomExam {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	x, err := app.Open(ctx, app.Options{SpecPath: "demo", Examiner: app.ExaminerOffline, DataDir: b.TempDir(), Input: rt.SourceRoom})
	if err != nil {
		b.Fatal(err)
	}
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, Token: srv.RoomToken(room, "examtui-bot", livekit.RoleBot)},
		Synthesizer: synth})
	if err != nil {
		b.Fatal(err)
	}
	cand, err := livekit.Dial(ctx, srv.URL, srv.RoomToken(room, "candidate", livekit.RoleCandidate),
		livekit.WithClientConnectOptions(lksdk.WithAutoSubscribe(false)))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := rb.WaitCandidate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := cand.WaitBot(ctx); err != nil {
		b.Fatal(err)
	}
	return &roomExam{b: b, x: x, rb: rb, cand: cand}
}

// play starts the exam and answers each line once the examiner has finished speaking.
func (e *roomExam) play(lines []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := e.x.Start(ctx); err != nil {
		return err
	}
	var last int64
	awaitReply := func() error {
		for {
			select {
			case ev := <-e.cand.Events():
				if ev.Event != rt.EventSpoken || ev.Seq <= last {
					continue
				}
				last = ev.Seq
				return e.awaitSilence(ctx)
			case <-ctx.Done():
				return fmt.Errorf("no examiner line after seq %d: %w", last, ctx.Err())
			}
		}
	}
	if err := awaitReply(); err != nil {
		return err
	}
	for _, line := range lines {
		if err := e.cand.SendCandidateText(ctx, line, 1); err != nil {
			return err
		}
		if err := awaitReply(); err != nil {
			return err
		}
	}
	for e.x.Controller.Snapshot().State != rt.StateCompleted {
		if ctx.Err() != nil {
			return fmt.Errorf("exam ended %s", e.x.Controller.Snapshot().State)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return e.awaitSilence(ctx) // the closing lines
}

// awaitSilence waits for the bot to start speaking (its lines are being synthesised) and then
// to be quiet for half a second: sentences follow each other with short gaps.
func (e *roomExam) awaitSilence(ctx context.Context) error {
	v := e.rb.Room.Voice()
	start := time.Now()
	for v.Queued() == 0 && time.Since(start) < 10*time.Second {
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	quietSince := time.Now()
	for time.Since(quietSince) < 500*time.Millisecond {
		if err := ctx.Err(); err != nil {
			return err
		}
		if v.Queued() > 0 {
			quietSince = time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func (e *roomExam) close() {
	e.cand.Close()
	e.x.Close()
	e.rb.Close()
}

package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/cmd/examtui/internal/worker"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// percentile of sorted durations, in milliseconds.
func percentileMs(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(len(sorted)-1, int(p*float64(len(sorted)-1)+0.5))
	return float64(sorted[i]) / float64(time.Millisecond)
}

// peakOverlap is the most spans open at one moment.
func peakOverlap(spans [][2]time.Time) int {
	peak := 0
	for _, a := range spans {
		n := 0
		for _, b := range spans {
			if !b[0].After(a[0]) && b[1].After(a[0]) {
				n++
			}
		}
		peak = max(peak, n)
	}
	return peak
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// benchThink is the candidates' pause before each answer in the load benchmark, so that N
// exams overlap as they would (a spoken turn takes seconds) rather than racing through.
const benchThink = time.Second

// BenchmarkWorkerReplyLatency: two worker processes hold N exams at once; every candidate
// types the rehearsal's six answers, each a second after the examiner's last words. The figure is examtui's
// added reply latency (the offline examiner and no speech, so no provider time): from the
// candidate sending an answer to the examiner's next words arriving, over every reply of
// every exam. Run with -benchtime=1x; the load average at the start is reported.
// EXAMTUI_BENCH_STORE=postgres runs it on a shared PostgreSQL store (internal/pgtest) instead of
// SQLite in one data directory.
func BenchmarkWorkerReplyLatency(b *testing.B) {
	for _, n := range []int{2, 10, 20, 30, 40, 50} {
		b.Run(fmt.Sprintf("exams=%d", n), func(b *testing.B) {
			p := newPool(b)
			if os.Getenv("EXAMTUI_BENCH_STORE") == "postgres" {
				// Both workers share a throw-away PostgreSQL database, as on several machines.
				p.pgURL = pgtest.NewDB(b)
			}
			if root := os.Getenv("EXAMTUI_BENCH_DATA_ROOT"); root != "" {
				// e.g. /dev/shm: the same store without the disk's fsync latency, to tell
				// the journal's durable commits from the rest.
				dir, err := os.MkdirTemp(root, "examtui-bench-")
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { os.RemoveAll(dir) })
				p.data = dir
			}
			w1 := p.startWorker("w1", "--max-exams", "60")
			w2 := p.startWorker("w2", "--max-exams", "60")
			lines := apptest.Rehearsal(b).Said()
			load := loadAvg()
			var all []time.Duration
			var spans [][2]time.Time // each exam's start and end, for the peak concurrency
			failed := 0
			b.ResetTimer()
			for it := range b.N {
				// Each candidate starts as soon as it is in (waiting for the others would let
				// silence beats run the first exams off the script).
				cands := make([]*candidate, n)
				var wg sync.WaitGroup
				var mu sync.Mutex
				for i := range n {
					room := fmt.Sprintf("bench-%d-%03d", it, i)
					p.dispatchExam(room, "hotel", room)
					cd := p.join(room, "cand-"+room)
					cd.think = benchThink
					cands[i] = cd
					wg.Add(1)
					go func() {
						defer wg.Done()
						began := time.Now()
						defer func() {
							mu.Lock()
							spans = append(spans, [2]time.Time{began, time.Now()})
							mu.Unlock()
							if os.Getenv("EXAMTUI_BENCH_DEBUG") != "" {
								b.Logf("%s took %s", cd.room, time.Since(began))
							}
						}()
						if err := cd.takeExam(lines, time.Minute); err != nil {
							b.Log(err)
							for _, w := range []*workerProc{w1, w2} {
								for _, m := range w.find("") {
									if m["room"] == cd.room {
										b.Logf("  %s: %v", w.name, m)
									}
								}
							}
							mu.Lock()
							failed++
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				for _, cd := range cands {
					cd.mu.Lock()
					all = append(all, cd.replies...)
					cd.mu.Unlock()
				}
			}
			b.StopTimer()
			slices.Sort(all)
			b.ReportMetric(percentileMs(all, 0.5), "p50-ms")
			b.ReportMetric(percentileMs(all, 0.95), "p95-ms")
			b.ReportMetric(percentileMs(all, 1), "max-ms")
			b.ReportMetric(float64(failed), "failed-exams")
			peak := peakOverlap(spans)
			b.ReportMetric(float64(peak), "peak-exams")
			b.Logf("%d exams on two workers (at most %d at once): %d replies, p50 %.0f ms, p95 %.0f ms, max %.0f ms, %d failed; load average at start %s",
				n, peak, len(all), percentileMs(all, 0.5), percentileMs(all, 0.95), percentileMs(all, 1), failed, load)
		})
	}
}

// BenchmarkJoinToFirstWord: from a candidate starting to join to the examiner's first words
// arriving. "ready": the exam was dispatched before and its bot waits in the room, the
// candidate only types; "ready-voice": the same with a candidate who publishes a microphone
// (as a browser or phone does); "on-join": the dispatch is in the candidate's token, so the
// join creates the room, the server dispatches the job and the bot joins. No speech providers
// (the words arrive as the spoken event), so the figure is examtui's and LiveKit's share.
//
// In "ready" the candidate publishes nothing, which livekit-server announces to the others only
// on its 3 s batch tick (pkg/rtc/room.go, subscriberUpdateInterval); the waiting bot finds them
// sooner by asking the server (transport/livekit/serverview.go); see docs/livekit.md.
func BenchmarkJoinToFirstWord(b *testing.B) {
	for _, mode := range []string{"ready", "ready-voice", "on-join"} {
		b.Run(mode, func(b *testing.B) {
			p := newPool(b)
			w := p.startWorker("w1", "--max-exams", "50")
			var times []time.Duration
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				room := fmt.Sprintf("join-%s-%d", mode, i)
				identity := "cand-" + room
				tok := p.srv.RoomToken(room, identity, livekit.RoleCandidate)
				if mode != "on-join" {
					p.dispatchExam(room, "hotel", room)
					testutil.Eventually(b, 30*time.Second, func() bool {
						return w.count("waiting for the candidate", "room", room) == 1
					}, "the bot waiting in "+room)
				} else {
					out, errOut, err := runCmdContext(context.Background(), "", "token", "--api-key", p.srv.APIKey, "--api-secret", p.srv.Secret, "--room", room,
						"--identity", identity, "--role", "candidate", "--dispatch-spec", "hotel", "--agent-name", e2eAgent)
					if err != nil {
						b.Fatalf("token: %v %s", err, errOut)
					}
					tok = strings.TrimSpace(out)
				}
				b.StartTimer()
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				var copts []livekit.ClientOption
				if mode == "ready-voice" {
					copts = append(copts, livekit.WithMicrophone(livekit.InputSampleRate))
				}
				c, err := livekit.Dial(ctx, p.srv.URL, tok, copts...)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				dialed := time.Since(start)
				cd := listenAs(b, room, c)
				at, err := cd.waitEvent(0, runtime.EventSpoken, "", 30*time.Second)
				if err != nil {
					b.Fatal(err)
				}
				if os.Getenv("EXAMTUI_BENCH_DEBUG") != "" {
					first, _ := cd.waitEvent(0, runtime.EventExamState, "", time.Second)
					b.Logf("dial %s, first exam_state %s, first spoken %s; worker: %s", dialed, first.Sub(start), at.Sub(start), w.tail(6))
				}
				b.StopTimer()
				times = append(times, at.Sub(start))
				cd.close()
			}
			slices.Sort(times)
			b.ReportMetric(percentileMs(times, 0.5), "p50-ms")
			b.ReportMetric(percentileMs(times, 0.95), "p95-ms")
			b.Logf("%s: join → first word p50 %.0f ms, p95 %.0f ms over %d joins; load average %s",
				mode, percentileMs(times, 0.5), percentileMs(times, 0.95), len(times), loadAvg())
		})
	}
}

// BenchmarkFailoverResume: the worker running an exam is killed with -9 after the candidate's
// first answer; the figure is from the kill to the candidate receiving the "examiner
// reconnected" line from the worker that took over.
func BenchmarkFailoverResume(b *testing.B) {
	p := newPool(b)
	workers := []*workerProc{p.startWorker("w0"), p.startWorker("w1")}
	lines := apptest.Rehearsal(b).Said()
	var times []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		room := fmt.Sprintf("failover-%d", i)
		p.dispatchExam(room, "hotel", room)
		cd := p.join(room, "cand-"+room)
		if _, err := cd.waitEvent(0, runtime.EventSpoken, "", 30*time.Second); err != nil {
			b.Fatal(err)
		}
		if err := cd.answer(lines[0], 30*time.Second); err != nil {
			b.Fatal(err)
		}
		var holder int
		testutil.Eventually(b, 10*time.Second, func() bool {
			for k, w := range workers {
				if w.count("exam running", "room", room) > 0 && !w.exited() {
					holder = k
					return true
				}
			}
			return false
		}, "the holder")
		before := cd.maxSeq()
		b.StartTimer()
		killed := time.Now()
		_ = workers[holder].cmd.Process.Signal(syscall.SIGKILL)
		at, err := cd.waitEvent(before, runtime.EventSpoken, worker.ReconnectedNotice[:20], 30*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		times = append(times, at.Sub(killed))
		cd.close()
		<-workers[holder].done
		workers[holder] = p.startWorker(fmt.Sprintf("w%d", i+2))
	}
	slices.Sort(times)
	b.ReportMetric(percentileMs(times, 0.5), "p50-ms")
	b.ReportMetric(percentileMs(times, 1), "max-ms")
	b.Logf("failover: kill -9 → reconnected p50 %.0f ms, max %.0f ms over %d; load average %s",
		percentileMs(times, 0.5), percentileMs(times, 1), len(times), loadAvg())
}

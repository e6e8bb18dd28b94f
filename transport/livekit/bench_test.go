package livekit_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	"gopkg.in/hraban/opus.v2"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/transport/livekit"
)

// rtpWatch is an RTP interceptor on the bot's outgoing audio that reports when the first
// packet carrying sound leaves after it was armed. Each packet is decoded, because the PCM
// track sends encoded silence between lines and its size says little (about 35 bytes a 10 ms
// frame, against 60 for a tone).
type rtpWatch struct {
	interceptor.NoOp
	mu    sync.Mutex
	armed time.Time
	first chan time.Duration
	dec   *opus.Decoder
	pcm   []int16
}

func (w *rtpWatch) arm(at time.Time) {
	w.mu.Lock()
	w.armed = at
	w.mu.Unlock()
}

// loud decodes one Opus packet and says whether it carries sound.
func (w *rtpWatch) loud(payload []byte) bool {
	if w.dec == nil {
		d, err := opus.NewDecoder(48000, 1)
		if err != nil {
			return len(payload) > 50
		}
		w.dec, w.pcm = d, make([]int16, 5760)
	}
	n, err := w.dec.Decode(payload, w.pcm)
	if err != nil {
		return false
	}
	return audio.RMS(w.pcm[:n]) > 300
}

func (w *rtpWatch) BindLocalStream(_ *interceptor.StreamInfo, writer interceptor.RTPWriter) interceptor.RTPWriter {
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, a interceptor.Attributes) (int, error) {
		w.mu.Lock()
		var armed time.Time
		if w.loud(payload) {
			armed = w.armed
			w.armed = time.Time{}
		}
		w.mu.Unlock()
		if !armed.IsZero() {
			w.first <- time.Since(armed)
		}
		return writer.Write(h, payload, a)
	})
}

type rtpWatchFactory struct{ w *rtpWatch }

func (f rtpWatchFactory) NewInterceptor(string) (interceptor.Interceptor, error) { return f.w, nil }

// BenchmarkTextToFirstAudio measures, per typed answer, the latency the bot adds between the
// answer's data packet arriving and the first outgoing RTP packet of the reply (bot-ms), and
// the round trip the candidate sees from sending to hearing (roundtrip-ms). The reply is a
// ready PCM tone, so the figures are the transport's share, without STT, LLM or TTS.
func BenchmarkTextToFirstAudio(b *testing.B) {
	srv := lktest.Start(b)
	watch := &rtpWatch{first: make(chan time.Duration, 1)}
	reply := tone(440, 200*time.Millisecond, 8000)
	var bot *livekit.Room
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bot, err := livekit.Join(ctx, livekit.Config{URL: srv.URL, Token: srv.Token("bot", livekit.RoleBot)},
		livekit.WithConnectOptions(lksdk.WithInterceptors([]interceptor.Factory{rtpWatchFactory{watch}}),
			lksdk.WithIncludeDefaultInterceptors(true)),
		livekit.WithCandidateText(func(m livekit.CandidateText) {
			watch.arm(m.Received)
			if err := bot.Voice().Write(reply); err != nil {
				b.Error(err)
			}
		}))
	if err != nil {
		b.Fatal(err)
	}
	defer bot.Close()
	cand := benchCandidate(ctx, b, srv)
	defer cand.Close()
	// A candidate that only types is announced to the bot on the server's 3 s participant batch
	// (this bot has no API credentials to ask sooner): measure from then on, or the first
	// answer's wait for the announcement lands in the average.
	if _, err := bot.WaitCandidate(ctx); err != nil {
		b.Fatal(err)
	}

	var botTotal, rtTotal time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Let the previous reply finish and drain what the candidate decoded.
		if err := bot.Voice().WaitPlayout(ctx); err != nil {
			b.Fatal(err)
		}
		// The bot's track carries silence between replies, so frames never stop: drained is
		// 150 ms with no loud frame, not 150 ms with no frame.
		quiet := time.NewTimer(150 * time.Millisecond)
		for drained := false; !drained; {
			select {
			case f := <-cand.Audio():
				if audio.RMS(f.Samples) > 1000 {
					quiet.Reset(150 * time.Millisecond)
				}
			case <-quiet.C:
				drained = true
			}
		}
		sent := time.Now()
		if err := cand.SendCandidateText(ctx, fmt.Sprintf("answer %d", i), 1); err != nil {
			b.Fatal(err)
		}
		select {
		case d := <-watch.first:
			botTotal += d
		case <-ctx.Done():
			b.Fatal("no reply packet")
		}
		if !awaitLoud(ctx, cand.Audio()) {
			b.Fatal("reply never heard")
		}
		rtTotal += time.Since(sent)
	}
	b.StopTimer()
	b.ReportMetric(float64(botTotal.Microseconds())/1000/float64(b.N), "bot-ms")
	b.ReportMetric(float64(rtTotal.Microseconds())/1000/float64(b.N), "roundtrip-ms")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConcurrentBots runs n exams at once in one process, each a bot and a candidate in
// their own room with audio flowing both ways (the candidate speaks a tone; the bot decodes it
// and speaks one back). One op is one second of that. It reports the process's CPU per exam
// (cpu-%/exam: 100 is one core), heap and goroutines per exam. Bot and candidate run in the
// same process and do the same work (encode one stream, decode one), so a bot alone costs
// about half of each figure. The server runs on the same machine.
func BenchmarkConcurrentBots(b *testing.B) {
	for _, n := range []int{1, 4, 8, 16} {
		b.Run(fmt.Sprintf("exams=%d", n), func(b *testing.B) { benchBots(b, n) })
	}
}

func benchBots(b *testing.B, n int) {
	srv := lktest.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutinesBefore := runtime.NumGoroutine()

	type pair struct {
		bot  *livekit.Room
		cand *livekit.Client
	}
	pairs := make([]pair, n)
	for i := range pairs {
		room := fmt.Sprintf("bench-%d", i)
		bot, err := livekit.Join(ctx, livekit.Config{URL: srv.URL, Token: srv.RoomToken(room, "bot", livekit.RoleBot)})
		if err != nil {
			b.Fatal(err)
		}
		cand, err := livekit.Dial(ctx, srv.URL, srv.RoomToken(room, "cand", livekit.RoleCandidate), livekit.WithMicrophone(16000))
		if err != nil {
			b.Fatal(err)
		}
		pairs[i] = pair{bot, cand}
	}
	defer func() {
		for _, p := range pairs {
			p.cand.Close()
			p.bot.Close()
		}
	}()
	for _, p := range pairs {
		if _, err := p.bot.WaitCandidate(ctx); err != nil {
			b.Fatal(err)
		}
	}

	// Audio both ways in real time: 20 ms chunks on a ticker; every decoded frame is consumed.
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var heard sync.Map
	chunk := tone(440, 20*time.Millisecond, 8000)
	for i, p := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			loud := 0
			for {
				select {
				case <-runCtx.Done():
					heard.Store(i, loud)
					return
				case <-tick.C:
					_ = p.cand.Voice().Write(chunk)
					_ = p.bot.Voice().Write(chunk)
				case f := <-p.bot.Audio():
					if audio.RMS(f.Samples) > 1000 {
						loud++
					}
				case <-p.cand.Audio():
				}
			}
		}()
	}
	time.Sleep(2 * time.Second) // subscriptions settle
	b.ResetTimer()
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(time.Duration(b.N) * time.Second)
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	goroutines := runtime.NumGoroutine()
	stop()
	wg.Wait()
	silent := 0
	heard.Range(func(_, v any) bool {
		if v.(int) < 50 {
			silent++
		}
		return true
	})
	if silent > 0 {
		b.Errorf("%d of %d bots heard (almost) nothing from their candidate", silent, n)
	}
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds()/float64(n), "cpu-%/exam")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n)/(1<<20), "heap-MB/exam")
	b.ReportMetric(float64(goroutines-goroutinesBefore)/float64(n), "goroutines/exam")
}

// benchCandidate joins srv's room as the candidate and waits for the bot and for its audio
// track; the caller closes it (before the bot, as it leaves first).
func benchCandidate(ctx context.Context, b *testing.B, srv *lktest.Server) *livekit.Client {
	b.Helper()
	cand, err := livekit.Dial(ctx, srv.URL, srv.Token("cand", livekit.RoleCandidate))
	if err != nil {
		b.Fatal(err)
	}
	if err := cand.WaitBot(ctx); err != nil {
		cand.Close()
		b.Fatal(err)
	}
	<-cand.Audio() // the bot's track is subscribed
	return cand
}

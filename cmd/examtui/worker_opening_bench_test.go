package main

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
)

// openingGap ends a candidate's opening: the bot then waits for an answer, silent.
const openingGap = 2500 * time.Millisecond

// heardOpening is how much of the examiner's voice (20 ms frames with speech in them) cd hears
// from the first such frame until a silence of openingGap, or until limit.
func heardOpening(cd *candidate, limit time.Duration) (heard time.Duration, firstAt time.Time) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	var gap <-chan time.Time
	var gapTimer *time.Timer
	for {
		select {
		case f := <-cd.c.Audio():
			if audio.RMS(f.Samples) <= 500 {
				continue
			}
			if firstAt.IsZero() {
				firstAt = time.Now()
				gapTimer = time.NewTimer(openingGap)
				defer gapTimer.Stop()
				gap = gapTimer.C
			} else {
				gapTimer.Reset(openingGap)
			}
			heard += time.Duration(len(f.Samples)) * time.Second / 16000
		case <-gap:
			return heard, firstAt
		case <-deadline.C:
			return heard, firstAt
		}
	}
}

// BenchmarkSpokenOpenings: one worker speaking with espeak-ng holds 20 exams at once, each
// candidate joining as its exam is dispatched (subscribing to the examiner's voice as a browser
// does). The figure is how many candidates heard their whole opening: at least 90 % of the
// voice a candidate alone on the worker hears (the baseline, measured first). Run with
// -benchtime=1x.
func BenchmarkSpokenOpenings(b *testing.B) {
	testutil.SkipIfShort(b, "a LiveKit server and espeak-ng")
	p := newPool(b)
	p.startWorker("w1", "--max-exams", "30", "--tts", "espeak")
	run := func(tag string, n int) ([]time.Duration, []time.Duration) {
		heard := make([]time.Duration, n)
		wait := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			room := fmt.Sprintf("opening-%s-%03d", tag, i)
			p.dispatchExam(room, "hotel", room)
			joined := time.Now()
			cd := p.join(room, "cand-"+room)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer cd.close()
				h, first := heardOpening(cd, 60*time.Second)
				heard[i] = h
				if !first.IsZero() {
					wait[i] = first.Sub(joined)
				}
			}()
		}
		wg.Wait()
		return heard, wait
	}
	base, _ := run("alone", 1)
	if base[0] < time.Second {
		b.Fatalf("a candidate alone heard %s of the opening", base[0])
	}
	b.ResetTimer()
	var heard, wait []time.Duration
	for it := range b.N {
		h, w := run(fmt.Sprint(it), 20)
		heard, wait = append(heard, h...), append(wait, w...)
	}
	b.StopTimer()
	whole := 0
	for _, h := range heard {
		if h >= base[0]*9/10 {
			whole++
		}
	}
	slices.Sort(heard)
	slices.Sort(wait)
	b.ReportMetric(float64(whole), "heard-whole-opening")
	b.ReportMetric(float64(len(heard)), "candidates")
	b.ReportMetric(heard[0].Seconds()/base[0].Seconds()*100, "min-heard-%")
	b.ReportMetric(percentileMs(wait, 0.95), "p95-join-to-voice-ms")
	b.Logf("%d of %d candidates heard their whole opening (alone: %s of voice; least heard under load %s); join → first voice p50 %.0f ms, p95 %.0f ms, max %.0f ms; load average %s",
		whole, len(heard), base[0], heard[0], percentileMs(wait, 0.5), percentileMs(wait, 0.95), percentileMs(wait, 1), loadAvg())
}

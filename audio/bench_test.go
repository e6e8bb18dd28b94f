package audio

import (
	"context"
	"testing"
	"time"
)

// benchScene is 12.5 s of espeak-ng speech in three turns over white noise at -40 dBFS.
func benchScene(b *testing.B) ([]int16, []Frame) {
	b.Helper()
	sc := buildScene(SampleRate,
		speak16k(b, "Good morning, I would like"), 300, speak16k(b, "a table for two by the window."), 1500,
		speak16k(b, "Is breakfast included in the price?"), 1500, speak16k(b, "Thank you very much."), 1000)
	s := mix(sc.samples, whiteNoise(len(sc.samples), -40, 5))
	return s, frames(s)
}

// BenchmarkVADEndpointing: the cost of VAD and endpointing per second of 16 kHz audio; the
// budget is 2% of a core (20 ms per audio second).
func BenchmarkVADEndpointing(b *testing.B) {
	s, fs := benchScene(b)
	seconds := float64(len(s)) / SampleRate
	b.ResetTimer()
	for b.Loop() {
		ep, err := NewEndpointer(EndpointConfig{})
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range fs {
			ep.Push(f)
		}
	}
	perAudioSecond := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / seconds
	b.ReportMetric(perAudioSecond/1e6, "ms/audio-s")
	b.ReportMetric(perAudioSecond/1e9*100, "%core")
}

// BenchmarkEndpointingDecision: how long after the end of speech the endpoint is decided, in
// audio time, beyond the configured delay (must stay within one 20 ms frame).
func BenchmarkEndpointingDecision(b *testing.B) {
	_, fs := benchScene(b)
	var worst, sum float64
	var n int
	b.ResetTimer()
	for b.Loop() {
		ep, _ := NewEndpointer(EndpointConfig{})
		for _, f := range fs {
			if r := ep.Push(f); r.Utterance != nil {
				over := float64(r.Utterance.DecidedMs-r.Utterance.EndMs) - float64(r.Utterance.Delay.Milliseconds())
				worst = max(worst, over)
				sum += over
				n++
			}
		}
	}
	b.ReportMetric(worst, "max-ms-over-delay")
	b.ReportMetric(sum/float64(max(n, 1)), "mean-ms-over-delay")
}

// BenchmarkCaptureToVAD: real PortAudio capture on the ALSA null device into the endpointer;
// reports the time from the capture callback to the frame being classified. The frame itself
// adds its 20 ms of buffering (frame-ms).
func BenchmarkCaptureToVAD(b *testing.B) {
	useNullALSA(b)
	c, err := OpenCapture(WithCaptureBuffer(500))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ep, _ := NewEndpointer(EndpointConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	// The null device delivers audio far faster than real time, so frames queue behind the
	// reader; frames that found the queue empty show the latency of a real-time device.
	var worst, sum, worstIdle, sumIdle time.Duration
	idle := 0
	frames := c.Frames()
	b.ResetTimer()
	for b.Loop() {
		queued := len(frames)
		f := <-frames
		ep.Push(f)
		lat := time.Since(f.Captured)
		worst = max(worst, lat)
		sum += lat
		if queued == 0 {
			idle++
			worstIdle = max(worstIdle, lat)
			sumIdle += lat
		}
	}
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(b.N), "avg-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
	if idle > 0 {
		b.ReportMetric(float64(sumIdle.Microseconds())/1000/float64(idle), "unqueued-avg-ms")
		b.ReportMetric(float64(worstIdle.Microseconds())/1000, "unqueued-max-ms")
	}
	b.ReportMetric(float64(FrameDuration.Milliseconds()), "frame-ms")
}

// BenchmarkBargeInStop: from Stop (the VAD has confirmed speech) to Play having returned on
// the null device; the budget is 100 ms.
func BenchmarkBargeInStop(b *testing.B) {
	useNullALSA(b)
	p, err := OpenPlayer()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	clip := Clip{Samples: make([]int16, 10*SampleRate), Rate: SampleRate}
	for i := range clip.Samples {
		clip.Samples[i] = int16(i % 2000)
	}
	var worst, sum time.Duration
	b.ResetTimer()
	for b.Loop() {
		done := make(chan time.Time, 1)
		go func() {
			_, _ = p.Play(context.Background(), clip)
			done <- time.Now()
		}()
		time.Sleep(50 * time.Millisecond)
		stop := time.Now()
		p.Stop()
		lat := (<-done).Sub(stop)
		worst = max(worst, lat)
		sum += lat
	}
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(b.N), "avg-stop-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-stop-ms")
}

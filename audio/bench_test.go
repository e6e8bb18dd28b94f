package audio

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
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

// BenchmarkCaptureToVAD: capture callback → ring → framing (and resampling) → channel →
// VAD/endpointer, with the callback driven at a real device's pace (10 ms buffers): the ALSA
// null device runs far faster than real time, so its own timing would only measure a backlog.
// The stream is opened on the null device but the callback is called by the benchmark. A frame
// also waits its own 20 ms (frame-ms) before it exists.
func BenchmarkCaptureToVAD(b *testing.B) {
	useNullALSA(b)
	for _, rate := range []float64{SampleRate, 44100} {
		b.Run(fmt.Sprintf("%.0fHz", rate), func(b *testing.B) {
			c, err := OpenCapture()
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			c.rate = rate
			c.ringMax = int(rate) * c.buffer / 50
			var rs *Resampler
			if rate != SampleRate {
				rs, _ = NewResampler(int(rate), SampleRate)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c.started.Store(true)
			go c.run(ctx, rs)
			go func() { // the device: one 10 ms buffer of speech-level tone every 10 ms
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				buf := sine(300, int(rate), int(rate)/100, 8000)
				for {
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
						c.callback(buf)
					}
				}
			}()
			ep, _ := NewEndpointer(EndpointConfig{})
			var worst, sum time.Duration
			frames := c.Frames()
			b.ResetTimer()
			for b.Loop() {
				f := <-frames
				ep.Push(f)
				lat := time.Since(f.Captured)
				worst = max(worst, lat)
				sum += lat
			}
			b.ReportMetric(float64(sum.Microseconds())/1000/float64(b.N), "avg-ms")
			b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
			b.ReportMetric(float64(FrameDuration.Milliseconds()), "frame-ms")
		})
	}
}

// BenchmarkBargeInStop: from Stop (the VAD has confirmed speech) to Play having returned on
// the null device; the budget is 100 ms.
func BenchmarkBargeInStop(b *testing.B) {
	p := nullPlayer(b)
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

// BenchmarkVoiceLoopLive: the live capture loop of Voice (frames in, VAD and endpointing,
// turns out to a real recogniser over the wire) on the 12.5 s noisy scene. The figure is the
// time the loop spent in VAD and endpointing per second of audio, as a share of one core
// (budget 2%), measured inside the loop on every frame; recognition runs on its own goroutine
// and is not part of it.
func BenchmarkVoiceLoopLive(b *testing.B) {
	s, _ := benchScene(b)
	srv := openaitest.New(b, openaitest.WithAPIKey("sk-test"), echoTranscriber("heard"))
	rec := newTestRecognizer(b, srv)
	var busy time.Duration
	var frames uint64
	b.ResetTimer()
	for b.Loop() {
		finals := make(chan struct{}, 8)
		v, err := NewVoice(NewClipSource(s, false), rec, nil, nil, WithOnTranscript(func(FinalTranscript) { finals <- struct{}{} }))
		if err != nil {
			b.Fatal(err)
		}
		if err := v.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		for range 3 { // the scene's three turns (the first two join across a 300 ms pause)
			<-finals
		}
		if err := v.Close(); err != nil {
			b.Fatal(err)
		}
		st := v.Stats()
		busy += st.VADBusy
		frames += st.Frames
	}
	audioTime := time.Duration(frames) * FrameDuration
	b.ReportMetric(float64(busy)/float64(audioTime)*100, "%core")
	b.ReportMetric(float64(busy.Microseconds())/1000/audioTime.Seconds(), "ms/audio-s")
}

package livekit

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/audio"
)

// TestRoomSourceEndsTurnOnWallClock runs the room's audio source and an endpointer in a
// synctest bubble (a fake clock): a candidate speaks for a second in 20 ms packets, then
// either stops sending or falls back to DTX (one packet every 400 ms). The endpoint must come
// MinEndpointingDelay after the speech on the clock, give or take the gap tolerance.
func TestRoomSourceEndsTurnOnWallClock(t *testing.T) {
	cases := []struct {
		name string
		dtx  bool
	}{
		{name: "sender stops"},
		{name: "DTX sparse packets", dtx: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				in := make(chan AudioFrame, 8)
				src := newRoomSource(in, slog.New(slog.DiscardHandler))
				if err := src.Start(ctx); err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				ep, err := audio.NewEndpointer(audio.DefaultEndpointConfig())
				if err != nil {
					t.Fatal(err)
				}
				spokeUntil := time.Now().Add(75 * 20 * time.Millisecond)
				var wg sync.WaitGroup
				defer wg.Wait()
				defer cancel()
				wg.Go(func() {
					for i := range 75 { // 0.5 s of room tone, then 1 s of a voiced tone
						s := make([]int16, 320)
						if i >= 25 {
							for k := range s {
								s[k] = int16(8000 * math.Sin(2*math.Pi*220*float64(i*320+k)/16000))
							}
						}
						time.Sleep(20 * time.Millisecond)
						in <- AudioFrame{Samples: s, SampleRate: InputSampleRate, Received: time.Now()}
					}
					for tc.dtx {
						time.Sleep(400 * time.Millisecond)
						select {
						case in <- AudioFrame{Samples: make([]int16, 320), SampleRate: InputSampleRate, Received: time.Now()}:
						case <-ctx.Done():
							return
						}
					}
				})
				deadline := time.After(10 * time.Second)
				for {
					select {
					case f := <-src.Frames():
						r := ep.Push(f)
						if r.Utterance == nil {
							continue
						}
						wait := time.Since(spokeUntil)
						cfg := ep.Config()
						if lo, hi := cfg.MinEndpointingDelay-audio.FrameDuration, cfg.MinEndpointingDelay+audio.DefaultGapTolerance+3*audio.FrameDuration; wait < lo || wait > hi {
							t.Errorf("turn ended %v after the speech stopped, want %v..%v", wait, lo, hi)
						}
						if d := r.Utterance.Duration(); d < 900*time.Millisecond || d > 1100*time.Millisecond {
							t.Errorf("turn of %v, want about 1 s", d)
						}
						return
					case <-deadline:
						t.Fatal("the turn never ended: missing audio was not counted as silence")
					}
				}
			})
		})
	}
}

// TestRoomSourceKeepsLateAudioInPlace: a busy receiver's decoder holds the middle of the
// candidate's line for 280 ms and then hands it on all at once, while the source's clock ticks
// on time. Placed by the sender's RTP time the line is whole: no silence inside it, every
// sample in order. (Placed by arrival time, the hold was counted as silence inside the line.)
func TestRoomSourceKeepsLateAudioInPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		in := make(chan AudioFrame, 100)
		src := newRoomSource(in, slog.New(slog.DiscardHandler))
		if err := src.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		const packets = 100 // 2 s of a voiced tone
		var sent []int16
		var line []AudioFrame
		for i := range packets {
			s := make([]int16, 320)
			for k := range s {
				s[k] = int16(8000 * math.Sin(2*math.Pi*220*float64(i*320+k)/16000))
			}
			sent = append(sent, s...)
			line = append(line, AudioFrame{Samples: s, SampleRate: InputSampleRate, Media: time.Duration(i) * 20 * time.Millisecond, Stream: 7})
		}
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() {
			var held []AudioFrame
			for i, f := range line {
				time.Sleep(20 * time.Millisecond)
				held = append(held, f)
				if i >= 25 && i < 39 {
					continue // held up in the decoder for 280 ms
				}
				for _, f := range held {
					f.Received = time.Now()
					in <- f
				}
				held = nil
			}
		})
		var got []int16
		for len(got) < len(sent) {
			select {
			case f := <-src.Frames():
				if f.Missing {
					t.Fatalf("missing frame at %d ms inside the line: late audio counted as silence", f.StartMs())
				}
				got = append(got, f.Samples...)
			case <-time.After(10 * time.Second):
				t.Fatalf("%d of %d samples framed", len(got), len(sent))
			}
		}
		if !slices.Equal(got[:len(sent)], sent) {
			t.Error("the line was not framed as sent")
		}
	})
}

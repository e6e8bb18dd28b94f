package livekit

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/audio"
)

// starvedVoice is a Voice over a bound dtxTrack whose pacer never runs by itself: the test
// sends its frames (sendFrames), as a starved machine's pacer would, late and few.
func starvedVoice(t *testing.T) (*Voice, *dtxTrack) {
	t.Helper()
	v := newVoice(InputSampleRate, "examiner", slog.New(slog.DiscardHandler))
	track, err := newDTXTrack(InputSampleRate, sdkLogger(v.log))
	if err != nil {
		t.Fatal(err)
	}
	track.bound = true // bound, with no pacer: nothing leaves unless the test sends it
	v.track = track
	t.Cleanup(func() { _ = track.pcm.Close() })
	return v, track
}

// sendFrames does what the pacer does for n frames: take one off the queue and send it.
func sendFrames(track *dtxTrack, n int) {
	for range n {
		frame, taken, _ := track.take(frameSamples(track.rate, 0))
		if frame == nil {
			return
		}
		_ = track.pcm.WriteSample(frame)
		track.markSent(frame, taken)
	}
}

// TestTrackSinkCountsWhatWasSent: a 2 s line on a track that, starved, has sent 300 ms of it
// when the wall clock says the line is over. Play must not return the line as played whole
// (the candidate has not heard it), and a cut then must count 300 ms heard, not 2 s. On the
// wall clock (the old count) the line was whole at 2 s, and a cut counted the time since it
// was queued.
func TestTrackSinkCountsWhatWasSent(t *testing.T) {
	cases := []struct {
		name string
		cut  bool // cut after the clock passed the line's end; else the track catches up
	}{
		{name: "cut while behind", cut: true},
		{name: "catches up"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v, track := starvedVoice(t)
				sink := &trackSink{v: v}
				clip := audio.Clip{Samples: make([]int16, 2*InputSampleRate), Rate: InputSampleRate}
				for i := range clip.Samples {
					clip.Samples[i] = int16(1000 * (i%40 - 20))
				}
				done := make(chan audio.PlayResult, 1)
				go func() {
					res, err := sink.Play(context.Background(), clip)
					if err != nil {
						t.Error(err)
					}
					done <- res
				}()
				synctest.Wait()
				sendFrames(track, 30)               // 300 ms sent
				time.Sleep(2500 * time.Millisecond) // the wall clock is past the line's end
				synctest.Wait()
				select {
				case res := <-done:
					t.Fatalf("Play returned %+v with 300 ms of a 2 s line sent", res)
				default:
				}
				if tc.cut {
					v.Clear()
				} else {
					sendFrames(track, 170)
				}
				synctest.Wait()
				res := <-done
				want := audio.PlayResult{Played: 300 * time.Millisecond, Total: 2 * time.Second, Interrupted: true}
				if !tc.cut {
					want = audio.PlayResult{Played: 2 * time.Second, Total: 2 * time.Second}
				}
				if res != want {
					t.Errorf("Play = %+v, want %+v", res, want)
				}
			})
		})
	}
}

// TestPacerCatchesUp stalls a track's pacer for 200 ms a tenth of the way into a second of
// audio (the pacer's goroutine starved), on a fake clock. The pacer then sends what is due at
// once, so the last sample leaves a second after the first, as it would unstalled; before, a
// ticker that dropped the ticks it could not deliver left the rest of the line 200 ms late
// (and a starved machine's stalls added up over a line).
func TestPacerCatchesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		track, err := newDTXTrack(InputSampleRate, sdkLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		var first, last time.Time
		frames := 0
		track.onSend = func(_ []int16, at time.Time) {
			frames++
			if frames == 1 {
				first = at
			}
			if frames == 10 {
				time.Sleep(200 * time.Millisecond) // the pacer is starved
			}
			last = at
		}
		track.bound = true
		track.start.Do(func() { go track.run() })
		if err := track.WriteSample(make([]int16, InputSampleRate)); err != nil {
			t.Fatal(err)
		}
		_ = track.Close()        // it still sends what is queued, then its tail, then stops
		<-track.reached(1 << 62) // the pacer has stopped
		if frames != 100 {
			t.Fatalf("%d frames sent, want 100", frames)
		}
		if took := last.Sub(first); took > 1000*time.Millisecond {
			t.Errorf("the last frame left %s after the first: the pacer stayed behind after the stall", took)
		}
	})
}

package livekit_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// TestRoomVoiceBackchannels has the candidate make a sound over the examiner's line through
// the real room (espeak-ng speech, a sox noise burst for a cough): a backchannel or a cough
// leaves the line to complete, uncut and no turn; an interruption still stops it — a long
// one once its voiced run passes a backchannel's length, a short one ("Wait.") once its words
// are recognised. The recogniser is a stand-in that returns the words the candidate said
// (what is under test is the room's audio, the VAD and the path's decision, not the STT).
func TestRoomVoiceBackchannels(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server, espeak-ng and sox")
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sound func(t *testing.T) []int16
		words string        // what the recogniser makes of it
		stop  time.Duration // 0: the line completes; else the cut is heard within this of the sound's voice
	}{
		{"mm-hmm", func(t *testing.T) []int16 { return speech(t, "Mm-hmm.") }, "Mm-hmm.", 0},
		{"okay", func(t *testing.T) []int16 { return speech(t, "Okay.") }, "Okay.", 0},
		{"cough", noiseBurst, "", 0},
		{"sentence", func(t *testing.T) []int16 { return speech(t, "Sorry, can you repeat that?") }, "Sorry, can you repeat that?",
			voicepath.DefaultBackchannelLength + 700*time.Millisecond},
		{"wait", func(t *testing.T) []int16 { return speech(t, "Wait.") }, "Wait.", 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startExam(t)
			ctrl := newVoiceCtrl()
			bot, err := livekit.NewBot(e.bot, ctrl, livekit.WithVoice(saysRecognizer(tc.words), espeak, voicepath.WithLogger(testLogger(t))))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { bot.Close() })
			cand := e.dial(t, "candidate-1", livekit.RoleCandidate, livekit.WithMicrophone(16000))
			e.waitAudience(t, "candidate-1")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			m := &mic{}
			go m.run(ctx, cand.Voice())
			var started atomic.Bool
			var mu sync.Mutex
			var heard []heardFrame
			go onAudio(ctx, cand, func(f livekit.AudioFrame) {
				rms := audio.RMS(f.Samples)
				if rms > 500 {
					started.Store(true)
				}
				mu.Lock()
				heard = append(heard, heardFrame{f.Received, rms})
				mu.Unlock()
			})
			line := "The breakfast service runs from seven until ten. Guests wait at the door at peak times. What would you change first?"
			ev, err := runtime.NewEvent("bc", 1, time.Now(), &runtime.SpokenPayload{NodeID: "n", Text: line})
			if err != nil {
				t.Fatal(err)
			}
			bot.Deliver(ev)
			testutil.Eventually(t, 20*time.Second, started.Load, "the examiner to be heard")
			// The examiner is a second into the line when the candidate makes the sound.
			testutil.Eventually(t, 20*time.Second, func() bool { return time.Since(firstHeard(&mu, &heard)) >= time.Second }, "a second of the line")
			sound := tc.sound(t)
			// The sound's voice begins after the clip's own lead-in of silence.
			speakAt := time.Now().Add(time.Duration(slices.IndexFunc(sound, func(x int16) bool { return x > 500 || x < -500 })) * time.Second / 16000)
			m.say(sound)
			if err := bot.WaitIdle(ctx); err != nil {
				t.Fatal("the bot never finished the line:", err)
			}
			if tc.stop == 0 {
				select {
				case heardOf := <-ctrl.cuts:
					t.Fatalf("the line was cut after %q", heardOf)
				default:
				}
				select {
				case turn := <-ctrl.turns:
					t.Fatalf("the sound reached the controller as a turn: %q", turn.Text)
				default:
				}
				if tc.words != "" {
					// Not a turn, but on the record: the controller hears the words as overheard.
					if got := testutil.Recv(t, ctrl.overheard, 10*time.Second, "the backchannel's words as overheard"); got.Text != tc.words {
						t.Errorf("overheard %q, want %q", got.Text, tc.words)
					}
				}
				return
			}
			testutil.Recv(t, ctrl.cuts, 5*time.Second, "the controller to hear of the interruption")
			if turn := testutil.Recv(t, ctrl.turns, 10*time.Second, "the interruption as a turn"); turn.Text != tc.words {
				t.Errorf("turn %q, want %q", turn.Text, tc.words)
			}
			stopped := examinerStopped(ctx, t, e, &mu, &heard)
			if d := stopped.Sub(speakAt); d > tc.stop {
				t.Errorf("the examiner was still heard %s after the candidate began, want within %s", d, tc.stop)
			}
			t.Logf("examiner stopped %s after the candidate began", stopped.Sub(speakAt).Round(time.Millisecond))
		})
	}
}

// firstHeard is when the candidate first heard the examiner's voice.
func firstHeard(mu *sync.Mutex, heard *[]heardFrame) time.Time {
	mu.Lock()
	defer mu.Unlock()
	for _, h := range *heard {
		if h.rms > 500 {
			return h.at
		}
	}
	return time.Now()
}

// noiseBurst is a cough-like sound: 300 ms of brown noise (sox).
func noiseBurst(t *testing.T) []int16 {
	t.Helper()
	out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", "-",
		"synth", "0.3", "brownnoise", "vol", "0.5").Output()
	if err != nil {
		t.Fatal("sox:", err)
	}
	pcm := make([]int16, len(out)/2)
	if err := binary.Read(bytes.NewReader(out), binary.LittleEndian, pcm); err != nil {
		t.Fatal(err)
	}
	return pcm
}

// saysRecognizer recognises every utterance as its words ("" : nothing).
type saysRecognizer string

func (r saysRecognizer) Transcribe(context.Context, audio.Utterance) (audio.Transcript, error) {
	return audio.Transcript{Text: strings.TrimSpace(string(r)), IsFinal: true}, nil
}

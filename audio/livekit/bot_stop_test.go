package livekit_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// TestBotCutsTheLine has the bot say the exam's opening (about nine seconds) and cuts it a
// moment in: by the candidate's stop message, the native interrupt, or by an examiner's pause.
// Either way the line stops at once. The controller is told of the candidate's cut (a
// barge_in with what was heard, which is all the examiner's context keeps of the line) and
// not of the examiner's, which it ordered itself.
func TestBotCutsTheLine(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server and espeak-ng")
	cases := []struct {
		name     string
		cut      func(ctx context.Context, cand, exr *livekit.Client) error
		bargeIns int
	}{
		{"candidate stop", func(ctx context.Context, cand, _ *livekit.Client) error { return cand.SendCandidateStop(ctx) }, 1},
		{"examiner pause", func(ctx context.Context, _, exr *livekit.Client) error {
			return exr.SendControl(ctx, runtime.ControlPause)
		}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			espeak, err := audio.NewEspeak()
			if err != nil {
				t.Fatal(err)
			}
			e := startExam(t)
			rec := &runtime.Recorder{}
			ctrl, fan := liveController(t, "cut-"+strings.ReplaceAll(tc.name, " ", "-"), rec)
			rv, err := livekit.NewRoomVoice(e.bot, nil, espeak, livekit.WithRoomVoiceLogger(testLogger(t)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rv.Close() })
			bot := e.serve(t, ctrl, fan, livekit.WithAudioTurns(rv.Turns), livekit.WithSpeaker(rv.Say))
			rv.OnBargeIn(bot.Interrupt)
			cand, exr := e.dialBoth(t)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var voiced atomic.Bool
			go onAudio(ctx, cand, func(f livekit.AudioFrame) {
				if audio.RMS(f.Samples) > 500 {
					voiced.Store(true)
				}
			})
			if err := ctrl.Start(ctx); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, 20*time.Second, voiced.Load, "the examiner's opening to be heard")
			time.Sleep(2 * time.Second) // the examiner is a few words into its line when it is cut
			cutAt := time.Now()
			if err := tc.cut(ctx, cand, exr); err != nil {
				t.Fatal(err)
			}
			// Every line has been dealt with once the bot is idle: the cut one was reported
			// (or not) before that.
			if err := bot.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(cutAt); took > 4*time.Second {
				t.Errorf("the bot was idle %s after the cut: the opening was not cut", took)
			}
			var cuts []string
			for _, ev := range rec.Events() {
				if p, err := ev.Decode(); err == nil {
					if r, ok := p.(*runtime.RecoveryPayload); ok && r.Kind == runtime.RecoveryBargeIn {
						cuts = append(cuts, r.Detail)
					}
				}
			}
			if len(cuts) != tc.bargeIns {
				t.Fatalf("barge_in recoveries %q, want %d", cuts, tc.bargeIns)
			}
			for _, c := range cuts {
				if !strings.HasPrefix(c, `candidate heard: "`) {
					t.Errorf("barge_in %q: the candidate heard two seconds of the line", c)
				}
			}
			t.Logf("idle %s after the cut; barge-ins %q", time.Since(cutAt).Round(time.Millisecond), cuts)
		})
	}
}

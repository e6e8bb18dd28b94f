package livekit_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
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
			bot := e.serve(t, ctrl, fan, livekit.WithVoice(nil, espeak, voicepath.WithLogger(testLogger(t))))
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
			// The candidate is told the line is over (line_end): cut about two seconds in (of
			// the sentences begun: Total counts those), nothing after it.
			le := testutil.Recv(t, cand.LineEnds(), 10*time.Second, "the cut line's line_end")
			if le.Ending != voicepath.LineCut || !le.Idle || le.Through < le.Seq || le.Seq < 1 ||
				le.Played < time.Second || le.Played >= le.Total {
				t.Errorf("line_end %+v: want the opening cut two seconds in, nothing after it", le)
			}
			t.Logf("idle %s after the cut; barge-ins %q; line_end %+v", time.Since(cutAt).Round(time.Millisecond), cuts, le)
		})
	}
}

// TestBotCutsALineNotYetPlaying cuts a line while its speaker is still preparing it (a
// synthesis that takes long, as between two sentences of a line): clearing the track alone
// found nothing queued and the line played on in full. The line's context is cancelled, so the
// speaker stops at once, and the controller records that the candidate heard none of it.
func TestBotCutsALineNotYetPlaying(t *testing.T) {
	e := startExam(t)
	rec := &runtime.Recorder{}
	ctrl, fan := liveController(t, "cut-synth", rec)
	entered := make(chan struct{}, 8)
	bot := e.serve(t, ctrl, fan, livekit.WithVoice(nil, slowSynth{entered}, voicepath.WithLogger(testLogger(t))))
	cand, _ := e.dialBoth(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Recv(t, entered, 10*time.Second, "the speaker to start on the opening")
	cutAt := time.Now()
	if err := cand.SendCandidateStop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitIdle(ctx); err != nil {
		t.Fatalf("the bot never went idle: the line was not cut (%v)", err)
	}
	var cuts []string
	for _, ev := range rec.Events() {
		if p, err := ev.Decode(); err == nil {
			if r, ok := p.(*runtime.RecoveryPayload); ok && r.Kind == runtime.RecoveryBargeIn {
				cuts = append(cuts, r.Detail)
			}
		}
	}
	if len(cuts) != 1 || cuts[0] != "candidate heard: nothing" {
		t.Fatalf("barge_in recoveries %q, want one: the candidate heard nothing", cuts)
	}
	t.Logf("idle %s after the stop", time.Since(cutAt).Round(time.Millisecond))
}

// slowSynth takes far longer to synthesise a sentence than the test waits, unless cut.
type slowSynth struct{ entered chan struct{} }

func (s slowSynth) Synthesize(ctx context.Context, _ string, _ audio.SpeakOptions) (audio.Clip, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		return audio.Clip{}, ctx.Err()
	case <-time.After(30 * time.Second):
		return audio.Clip{}, nil
	}
}

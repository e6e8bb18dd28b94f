package livekit_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

func compileExample(t testing.TB) *spec.Exam {
	t.Helper()
	src, err := examples.FS.ReadFile("hotel-breakfast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exam, diags, err := spec.Compile("hotel-breakfast.yaml", src)
	if err != nil {
		t.Fatalf("compile: %v\n%v", err, diags)
	}
	return exam
}

// saidSynth is espeak-ng keeping what it was asked to say.
type saidSynth struct {
	audio.Synthesizer
	said *[]string
	mu   *sync.Mutex
}

func (s saidSynth) Synthesize(ctx context.Context, text string, o audio.SpeakOptions) (audio.Clip, error) {
	s.mu.Lock()
	*s.said = append(*s.said, text)
	s.mu.Unlock()
	return s.Synthesizer.Synthesize(ctx, text, o)
}

// TestBotRunsALiveExam runs the real controller with the offline examiner behind a bot in a
// real room: the candidate types answers and hears the examiner, the examiner watches and
// steps in, and each side receives only what it may.
func TestBotRunsALiveExam(t *testing.T) {
	e := startExam(t)
	ctrl, fan := liveController(t, "live-1")
	var (
		said   []string
		saidMu sync.Mutex
	)
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	e.serve(t, ctrl, fan, livekit.WithVoice(nil, saidSynth{espeak, &said, &saidMu}, voicepath.WithLogger(testLogger(t))))

	cand, exr := e.dialBoth(t)
	ctx := context.Background()
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}

	var candEvents, exEvents []runtime.Event
	has := func(evs []runtime.Event, typ runtime.EventType, contains string) bool {
		for _, ev := range evs {
			if ev.Event == typ && strings.Contains(string(ev.Payload), contains) {
				return true
			}
		}
		return false
	}
	candEvents = append(candEvents, collect(ctx, cand.Events(), 15*time.Second, func(got []runtime.Event) bool {
		return has(got, runtime.EventSpoken, "")
	})...)
	if !has(candEvents, runtime.EventNodeEntered, "welcome") {
		t.Fatalf("candidate did not see the first node: %v", candEvents)
	}

	// The candidate hears the introduction.
	var pcm []int16
	listen := time.After(8 * time.Second)
	for voicedDuration(pcm, 16000, 500) < 500*time.Millisecond {
		select {
		case f := <-cand.Audio():
			pcm = append(pcm, f.Samples...)
		case <-listen:
			t.Fatalf("candidate heard only %s of the examiner's voice", voicedDuration(pcm, 16000, 500))
		}
	}

	// A typed answer goes through the controller.
	if err := cand.SendCandidateText(ctx, "My name is Alex and I am on the hospitality management course.", 1); err != nil {
		t.Fatal(err)
	}
	exEvents = append(exEvents, collect(ctx, exr.Events(), 15*time.Second, func(got []runtime.Event) bool {
		return has(got, runtime.EventObservation, "") && has(got, runtime.EventTranscriptSegment, "Alex")
	})...)
	if !has(exEvents, runtime.EventTranscriptSegment, "Alex") || !has(exEvents, runtime.EventObservation, "") {
		t.Fatalf("examiner did not see the turn: %d events", len(exEvents))
	}

	// The examiner steps in; the candidate's attempt to do the same is refused.
	if err := exr.SendAdmin(ctx, runtime.AdminQueued, "Ask about staffing costs next."); err != nil {
		t.Fatal(err)
	}
	refused(t, cand.SendControl(ctx, runtime.ControlEnd))
	exEvents = append(exEvents, collect(ctx, exr.Events(), 15*time.Second, func(got []runtime.Event) bool {
		return has(got, runtime.EventAdminInstruction, "examiner-1") && has(got, runtime.EventSystemError, "candidate-1")
	})...)
	if !has(exEvents, runtime.EventAdminInstruction, `"sender":"examiner-1"`) {
		t.Error("admin instruction not recorded with its sender")
	}
	if !has(exEvents, runtime.EventSystemError, "livekit_unauthorized_message") {
		t.Error("the candidate's control was not reported")
	}

	if err := exr.SendControl(ctx, runtime.ControlEnd); err != nil {
		t.Fatal(err)
	}
	candEvents = append(candEvents, collect(ctx, cand.Events(), 15*time.Second, func(got []runtime.Event) bool {
		return has(got, runtime.EventExamCompleted, "")
	})...)
	exEvents = append(exEvents, collect(ctx, exr.Events(), 15*time.Second, func(got []runtime.Event) bool {
		return has(got, runtime.EventExamCompleted, "")
	})...)
	if !has(candEvents, runtime.EventExamCompleted, "aborted") || !has(exEvents, runtime.EventExamCompleted, "aborted") {
		t.Fatal("exam_completed did not reach both sides")
	}
	for _, ev := range candEvents {
		if !runtimetest.CandidateTypes[ev.Event] {
			t.Errorf("candidate received %s #%d", ev.Event, ev.Seq)
		}
	}
	// The examiner's stream is the journal: gapless seqs from 1 (out-of-band reports aside).
	var seqs []int64
	for _, ev := range exEvents {
		if ev.Seq > 0 {
			seqs = append(seqs, ev.Seq)
		}
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("examiner's seqs are not 1..n in order: %v", seqs)
		}
	}
	saidMu.Lock()
	defer saidMu.Unlock()
	if len(said) == 0 {
		t.Error("nothing was said aloud")
	}
}

func TestNewBotValidates(t *testing.T) {
	if _, err := livekit.NewBot(nil, nil); !errors.Is(err, livekit.ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
}

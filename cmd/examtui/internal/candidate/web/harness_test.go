package web_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web/webtest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// exam is the demo exam's bot in a real room with a voice: espeak-ng says the examiner's lines
// into its track, and a stand-in recogniser on the OpenAI-compatible wire hears the candidate.
type exam struct {
	lk  *lktest.Server
	x   *app.Exam
	rb  *app.RoomBot
	stt *openaitest.Server

	mu       sync.Mutex
	events   []runtime.Event
	bargeIns int // the bot stopped its line because it heard the candidate
	timings  []voicepath.Timing
}

// startExam opens the exam of specPath ("": the demo exam; offline examiner, a store so a
// rejoining page gets the history) and joins its bot to lk's room; the exam starts when the
// candidate is in the room.
func startExam(t testing.TB, lk *lktest.Server, answers *webtest.Answers, specPath string) *exam {
	t.Helper()
	ctx := context.Background()
	e := &exam{lk: lk}
	e.stt = openaitest.New(t, openaitest.WithTranscriber(answers.Transcribe))
	rec, err := audio.NewOpenAIRecognizer(e.stt.URL(), "sk-test", e.stt.Client())
	if err != nil {
		t.Fatal(err)
	}
	synth, err := audio.NewEspeak(audio.WithEspeakWPM(260))
	if err != nil {
		t.Fatal(err)
	}
	e.x = apptest.OpenExam(ctx, t, app.Options{SpecPath: specPath, DataDir: t.TempDir(), Input: runtime.SourceRoom})
	e.x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
	}))
	e.rb, err = e.x.JoinRoom(ctx, app.RoomOptions{
		Config:      livekit.Config{URL: lk.URL, Token: lk.Token("examtui-bot", livekit.RoleBot)},
		Recognizer:  rec,
		Synthesizer: synth,
		// Barge-in and the adaptive end of turn, as examtui run --room has them (the
		// candidate's browser cancels its own echo; the exam's policies.turnTaking tunes the
		// waits). A pause's words are asked for too: Answers knows a part of an answer from
		// the whole.
		VoiceOptions: []voicepath.Option{voicepath.WithBargeIn(true),
			voicepath.WithRoomEndOfTurn(audio.EndpointConfig{}, e.x.Spec.Policies.TurnTaking, false, false), voicepath.WithTimings(func(tm voicepath.Timing) {
				e.mu.Lock()
				e.timings = append(e.timings, tm)
				e.mu.Unlock()
			})},
		OnVoiceEvent: func(ev audio.Event) {
			if ev.Kind == audio.EventBargeIn {
				e.mu.Lock()
				e.bargeIns++
				e.mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.rb.Close() })
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if _, err := e.rb.WaitCandidate(wctx); err == nil {
			_ = e.x.Start(ctx)
		}
	}()
	return e
}

// count counts the exam's events of type typ so far.
func (e *exam) count(typ runtime.EventType) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.events {
		if ev.Event == typ {
			n++
		}
	}
	return n
}

// candidateSaid lists the candidate's transcript segments, in order.
func (e *exam) candidateSaid(t testing.TB) []string {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.events {
		if ev.Event != runtime.EventTranscriptSegment {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if s := p.(*runtime.TranscriptSegmentPayload); s.Speaker == "candidate" {
			out = append(out, s.Text)
		}
	}
	return out
}

func (e *exam) state() runtime.ExamState { return e.x.Controller.Snapshot().State }

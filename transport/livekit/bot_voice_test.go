package livekit_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// mic writes a participant's microphone: each queued line whole (the track sends it on its own
// clock, so a writer starved of CPU leaves no hole in it), silence in between, 20 ms at a time.
type mic struct {
	mu     sync.Mutex
	q      []int16
	wrote  time.Time     // when the latest queued line was written to the track
	writes chan struct{} // closed (and replaced) at each such write; nil until asked for
}

// written returns a channel closed when the next queued line has been written to the track.
func (m *mic) written() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.writes == nil {
		m.writes = make(chan struct{})
	}
	return m.writes
}

func (m *mic) say(pcm []int16) {
	m.mu.Lock()
	m.q = append(m.q, pcm...)
	m.mu.Unlock()
}

func (m *mic) run(ctx context.Context, v *livekit.Voice) {
	silence := make([]int16, 320)
	testutil.Every(ctx, 20*time.Millisecond, func() {
		m.mu.Lock()
		chunk := silence
		queued := len(m.q) > 0
		if queued {
			chunk, m.q = m.q, nil
		}
		m.mu.Unlock()
		at := time.Now()
		_ = v.Write(chunk)
		if queued {
			m.mu.Lock()
			m.wrote = at
			if m.writes != nil {
				close(m.writes)
				m.writes = nil
			}
			m.mu.Unlock()
		}
	})
}

// TestRoomVoiceSpokenTurns speaks two answers into the candidate's microphone and checks that
// the bot's voice pipeline (VAD, endpointing, pocketsphinx on a fixed grammar) hands them to the
// real controller as room turns, and that the examiner's replies are spoken back.
func TestRoomVoiceSpokenTurns(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server, espeak-ng and pocketsphinx")
	lines := []string{
		"My name is Alex and I am on the hospitality management course.",
		"We could open a second buffet line, or another way is a grab-and-go counter.",
	}
	sphinx, err := audio.NewSphinx(lines)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sphinx.Close() })
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	e := startExam(t)
	rec := &runtime.Recorder{}
	ctrl, fan := liveController(t, "voice-1", rec)
	bot := e.serve(t, ctrl, fan, livekit.WithVoice(sphinx, espeak, voicepath.WithLogger(testLogger(t))))

	cand := e.dial(t, "candidate-1", livekit.RoleCandidate, livekit.WithMicrophone(16000))
	e.waitAudience(t, "candidate-1")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	m := &mic{}
	go m.run(ctx, cand.Voice())
	var heard atomic.Int64      // voiced 20 ms windows of the examiner's voice
	var lastVoiced atomic.Int64 // unix nanos of the last voiced frame the candidate received
	go onAudio(ctx, cand, func(f livekit.AudioFrame) {
		if audio.RMS(f.Samples) > 500 {
			heard.Add(1)
			lastVoiced.Store(f.Received.UnixNano())
		}
	})
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	segments := func() []runtime.TranscriptSegmentPayload {
		var out []runtime.TranscriptSegmentPayload
		for _, ev := range rec.Events() {
			if p, err := ev.Decode(); err == nil {
				if s, ok := p.(*runtime.TranscriptSegmentPayload); ok && s.Speaker == "candidate" {
					out = append(out, *s)
				}
			}
		}
		return out
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return heard.Load() > 25 }, "the examiner's opening to be heard")
	for i, line := range lines {
		// Answer once the examiner has finished speaking: the bot has said every queued line,
		// its track has sent all of it (under load the track runs behind the wall clock), and
		// the candidate has received no voice for 600 ms since. (The track sends nothing in
		// silence, so the silence is counted on the clock, not in audio received.)
		idleCtx, idleCancel := context.WithTimeout(ctx, 30*time.Second)
		if err := bot.WaitIdle(idleCtx); err != nil {
			t.Fatalf("before turn %d the examiner never finished speaking: %v", i+1, err)
		}
		select {
		case <-e.bot.Voice().Sent():
		case <-idleCtx.Done():
			t.Fatalf("before turn %d the examiner's track never sent its audio", i+1)
		}
		idleCancel()
		testutil.Eventually(t, 30*time.Second, func() bool {
			return time.Since(time.Unix(0, lastVoiced.Load())) >= 600*time.Millisecond
		}, "the examiner to stop")
		m.say(speech(t, line))
		testutil.Eventually(t, 30*time.Second, func() bool { return len(segments()) == i+1 }, "spoken turn %d", i+1)
		if i+1 < len(lines) {
			// The examiner replies before the next answer.
			from := heard.Load()
			testutil.Eventually(t, 30*time.Second, func() bool { return heard.Load() > from }, "the examiner's reply to turn %d", i+1)
		}
		seg := segments()[i]
		if seg.Source != runtime.SourceRoom || !strings.EqualFold(audio.NormalizeForGrammar(seg.Text), audio.NormalizeForGrammar(line)) {
			t.Errorf("turn %d heard %q from %s, want %q", i+1, seg.Text, seg.Source, line)
		}
		if seg.DurationMs < 1500 {
			t.Errorf("turn %d lasted %d ms", i+1, seg.DurationMs)
		}
	}
	if snap := ctrl.Snapshot(); snap.NodeID != "scenario-hotel-breakfast" {
		t.Errorf("node after the spoken answers = %s", snap.NodeID)
	}
}

// TestRoomVoiceBargeIn has the examiner say a long line and the candidate speak over it: the
// examiner stops within a moment, the bot is idle early, and the controller hears of the cut.
func TestRoomVoiceBargeIn(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server and espeak-ng")
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	e := startExam(t)
	ctrl := newVoiceCtrl()
	// A recogniser that hears nothing: the candidate's audio is measured (barge-in), no turn
	// is submitted.
	bot, err := livekit.NewBot(e.bot, ctrl, livekit.WithVoice(deafRecognizer{}, espeak, voicepath.WithLogger(testLogger(t))))
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
	var lastVoiced atomic.Int64 // unix nanos of the last voiced frame the candidate heard
	var mu sync.Mutex
	var heard []heardFrame // every frame of the examiner's track the candidate received
	go onAudio(ctx, cand, func(f livekit.AudioFrame) {
		rms := audio.RMS(f.Samples)
		if rms > 500 {
			lastVoiced.Store(f.Received.UnixNano())
		}
		mu.Lock()
		heard = append(heard, heardFrame{f.Received, rms})
		mu.Unlock()
	})
	long := strings.Repeat("The breakfast service runs from seven until ten every morning of the week. ", 4)
	said := make(chan time.Duration, 1)
	start := time.Now()
	ev, err := runtime.NewEvent("barge", 1, start, &runtime.SpokenPayload{NodeID: "n", Text: long})
	if err != nil {
		t.Fatal(err)
	}
	bot.Deliver(ev)
	go func() {
		_ = bot.WaitIdle(ctx)
		said <- time.Since(start)
	}()
	testutil.Eventually(t, 20*time.Second, func() bool { return lastVoiced.Load() > 0 }, "the examiner to be heard")
	time.Sleep(time.Second) // the examiner is a second into the line when the candidate speaks
	speakAt := time.Now()
	m.say(speech(t, "Sorry, could you repeat the question?"))
	var took time.Duration
	select {
	case took = <-said:
	case <-ctx.Done():
		t.Fatal("the bot was not idle after the barge-in")
	}
	if took > 15*time.Second {
		t.Errorf("the bot was idle after %s: the whole line played", took)
	}
	testutil.Recv(t, ctrl.cuts, 5*time.Second, "the controller to hear of the barge-in")
	stopped := examinerStopped(ctx, t, e, &mu, &heard)
	if d := stopped.Sub(speakAt); d > voicepath.DefaultBackchannelLength+time.Second {
		t.Errorf("the examiner was still heard %s after the candidate began to speak", d)
	}
	t.Logf("examiner stopped %s after the candidate began; idle after %s", stopped.Sub(speakAt).Round(time.Millisecond), took.Round(time.Millisecond))
}

// heardFrame is a frame of the examiner's track the candidate received: when, and how loud.
type heardFrame struct {
	at  time.Time
	rms float64
}

// examinerStopped is when the candidate heard the examiner's last voiced frame after a cut.
// Frames in flight drain: once the bot's track has sent what was queued (the barge-in
// cleared it), a marker written to the track (200 ms of silence, then a tone louder than
// any speech) arrives after every frame sent before it, however slowly the machine runs;
// the track sends nothing in silence, so there is no other frame to wait for. The examiner
// stopped at the last voiced frame before the marker's silence. A frame received after the
// marker was written is the marker's, whatever its level: the receiver's decoder may conceal
// the silent gap before the marker's first packet with a loud frame.
func examinerStopped(ctx context.Context, t *testing.T, e *exam, mu *sync.Mutex, heard *[]heardFrame) time.Time {
	t.Helper()
	select {
	case <-e.bot.Voice().Sent():
	case <-ctx.Done():
		t.Fatal("the examiner's track never sent what was queued")
	}
	markerAt := time.Now()
	if err := e.bot.Voice().Write(append(make([]int16, 3200), tone(1000, 200*time.Millisecond, 32000)...)); err != nil {
		t.Fatal(err)
	}
	var stopped time.Time
	testutil.Eventually(t, 20*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		i := slices.IndexFunc(*heard, func(h heardFrame) bool { return h.rms > 16000 })
		if i < 0 {
			return false
		}
		for i > 0 && !(*heard)[i-1].at.Before(markerAt) { // the tone's onset, the marker's silence
			i--
		}
		for i > 0 && (*heard)[i-1].rms <= 500 { // the tail of silence after the examiner's last word
			i--
		}
		if i > 0 {
			stopped = (*heard)[i-1].at
		}
		return true
	}, "the marker written to the examiner's track after the barge-in")
	if stopped.IsZero() {
		t.Fatal("no voiced frame of the examiner before the marker")
	}
	return stopped
}

// voiceCtrl is a controller that keeps the turns and cuts it is handed.
type voiceCtrl struct {
	turns chan runtime.Turn
	cuts  chan string
}

func newVoiceCtrl() *voiceCtrl {
	return &voiceCtrl{turns: make(chan runtime.Turn, 8), cuts: make(chan string, 8)}
}

func (c *voiceCtrl) SubmitTurn(_ context.Context, t runtime.Turn) error { c.turns <- t; return nil }
func (c *voiceCtrl) Speculate(context.Context, runtime.Turn) error      { return nil }
func (c *voiceCtrl) Interim(string, float64) error                      { return nil }
func (c *voiceCtrl) UserActivity(bool)                                  {}
func (c *voiceCtrl) SpeechInterrupted(heard string) error               { c.cuts <- heard; return nil }
func (c *voiceCtrl) SpeechDone()                                        {}
func (c *voiceCtrl) Exam() *spec.Exam                                   { return nil }
func (c *voiceCtrl) Admin(context.Context, runtime.AdminInstruction) error {
	return nil
}
func (c *voiceCtrl) Control(context.Context, runtime.ControlAction, string) error { return nil }

// deafRecognizer hears no words.
type deafRecognizer struct{}

func (deafRecognizer) Transcribe(context.Context, audio.Utterance) (audio.Transcript, error) {
	return audio.Transcript{IsFinal: true}, nil
}

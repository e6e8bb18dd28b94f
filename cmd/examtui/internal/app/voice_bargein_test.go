package app_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/voicepath"
)

// stampedPlayer is the PortAudio player on the null device, noting when the voice path plays a
// clip on it (and what was heard of it), pauses, resumes and cuts it. The player does the work.
type stampedPlayer struct {
	*audio.Player
	mu                     sync.Mutex
	plays                  []stampedPlay
	paused, resumed, cutAt []time.Time
	playing                chan struct{} // gets one value at the first clip
	once                   sync.Once
}

type stampedPlay struct {
	start time.Time
	res   audio.PlayResult
}

func (s *stampedPlayer) Play(ctx context.Context, c audio.Clip) (audio.PlayResult, error) {
	start := time.Now()
	s.once.Do(func() { s.playing <- struct{}{} })
	r, err := s.Player.Play(ctx, c)
	s.mu.Lock()
	s.plays = append(s.plays, stampedPlay{start, r})
	s.mu.Unlock()
	return r, err
}

func (s *stampedPlayer) note(at *[]time.Time) {
	s.mu.Lock()
	*at = append(*at, time.Now())
	s.mu.Unlock()
}

func (s *stampedPlayer) Pause()  { s.note(&s.paused); s.Player.Pause() }
func (s *stampedPlayer) Resume() { s.note(&s.resumed); s.Player.Resume() }
func (s *stampedPlayer) Stop()   { s.note(&s.cutAt); s.Player.Stop() }

// stamps is a copy of what was noted.
func (s *stampedPlayer) stamps() (plays []stampedPlay, paused, resumed, cut []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.plays), slices.Clone(s.paused), slices.Clone(s.resumed), slices.Clone(s.cutAt)
}

// TestMicBargeInPausesTheSpeaker: `run --mic --barge-in` on the local speaker (PortAudio on the
// null device) pauses the examiner's line at the candidate's voice and lets the words decide,
// as a room does. The candidate makes a sound 0.4 s into the demo exam's first line (espeak-ng
// speech, or a burst of noise for a cough, paced as a microphone delivers it; the words come
// from the transcription stand-in on the OpenAI wire):
//   - "Mm-hmm." or "Okay." or a cough: the line pauses, resumes from where it paused and is
//     heard whole (no clip cut short), and the sound is no turn; examiner.wav has the line's
//     audio where it was heard: silence over the pause, the line again after it;
//   - "Sorry, can you repeat that?": the line falls silent at the voice's onset (the pause,
//     well before a backchannel's length would cut it), is cut, and the controller records the
//     barge-in. Each case logs its figures ("figures:").
func TestMicBargeInPausesTheSpeaker(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio and espeak-ng")
	voiceNullALSA(t)
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	cough := make([]int16, audio.SampleRate*3/10)
	audio.AddNoise(cough, -20, 7)
	for _, tc := range []struct {
		name      string
		sound     []int16
		words     string
		interrupt bool
	}{
		{"mm-hmm", spokenTurn(t, espeak, "Mm-hmm.", 1), "Mm-hmm.", false},
		{"okay", spokenTurn(t, espeak, "Okay.", 2), "Okay.", false},
		{"cough", withRoom(cough, 3), "", false},
		{"sorry", spokenTurn(t, espeak, "Sorry, can you repeat that?", 4), "Sorry, can you repeat that?", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			x, espeak, player := openDemoSpeaking(ctx, t, app.Options{NoStore: true})
			sink := &stampedPlayer{Player: player, playing: make(chan struct{}, 1)}
			whisper := &openaitest.Answers{}
			whisper.Add(tc.words, tc.sound, audio.SampleRate)
			srv := openaitest.New(t, openaitest.WithTranscriber(whisper.Transcribe))
			rec, err := audio.NewOpenAIRecognizer(srv.URL(), "test-key", srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			src := newPushSource()
			recDir := t.TempDir()
			v, err := app.StartVoice(ctx, x, app.VoiceParts{Source: src, Recognizer: rec, Synthesizer: espeak, Sink: sink},
				app.WithVoiceBargeIn(true), app.WithVoiceRecording(recDir), app.WithVoiceLogger(voiceTestLogger(t)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { v.Close() })
			w := watchVoice(t, x)
			var mu sync.Mutex
			var bargeIns int
			x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
				if p, err := ev.Decode(); err == nil {
					if r, ok := p.(*runtime.RecoveryPayload); ok && r.Kind == runtime.RecoveryBargeIn {
						mu.Lock()
						bargeIns++
						mu.Unlock()
					}
				}
			}))
			drainLevels(v)
			if err := x.Start(ctx); err != nil {
				t.Fatal(err)
			}
			testutil.Recv(t, sink.playing, 30*time.Second, "the examiner's first line to play")
			pushed := time.Now()
			pushPaced(src, tc.sound)
			onset := pushed.Add(time.Duration(firstLoud(tc.sound)) * time.Second / audio.SampleRate)

			if tc.interrupt {
				testutil.Eventually(t, 30*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return bargeIns == 1 }, "the barge-in to be recorded")
				plays, paused, _, cut := sink.stamps()
				if len(paused) == 0 {
					t.Fatal("the line was cut without pausing first")
				}
				if len(cut) == 0 || cut[0].Before(paused[0]) {
					t.Fatalf("paused at %v, cut at %v: want the pause first", paused, cut)
				}
				if !slices.ContainsFunc(plays, func(p stampedPlay) bool { return p.res.Interrupted }) {
					t.Fatal("no clip of the line was cut short")
				}
				// The pause is the voice's onset, not a backchannel's length of it.
				if d := paused[0].Sub(onset); d >= voicepath.DefaultBackchannelLength {
					t.Errorf("the line fell silent %v after the voice began, want before a backchannel's length (%v)", d, voicepath.DefaultBackchannelLength)
				}
				t.Logf("figures: %s onset-to-silence (pause) %d ms, onset-to-cut %d ms", tc.name, paused[0].Sub(onset).Milliseconds(), cut[0].Sub(onset).Milliseconds())
				return
			}

			testutil.Eventually(t, 60*time.Second, func() bool { return v.Idle() }, "the examiner's lines to end")
			plays, paused, resumed, cut := sink.stamps()
			if len(paused) != 1 || len(resumed) != 1 {
				t.Fatalf("%d pauses and %d resumes: want the line paused at the sound and resumed", len(paused), len(resumed))
			}
			if len(cut) > 0 {
				t.Fatalf("the line was cut at %v", cut)
			}
			for _, p := range plays {
				if p.res.Interrupted || p.res.Played != p.res.Total {
					t.Fatalf("a clip was cut short: %+v", p.res)
				}
			}
			w.mu.Lock()
			n := len(w.obs)
			w.mu.Unlock()
			if n != 0 {
				t.Fatalf("the sound reached the examiner as a turn (%d observations)", n)
			}
			if tc.words != "" {
				testutil.Eventually(t, 10*time.Second, func() bool {
					w.mu.Lock()
					defer w.mu.Unlock()
					return slices.ContainsFunc(w.segs, func(s *runtime.TranscriptSegmentPayload) bool { return s.Overheard && s.Text == tc.words })
				}, "the backchannel's words on the record as overheard")
			}
			hold := resumed[0].Sub(paused[0])

			// examiner.wav: the line's audio where it was heard, the pause included.
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			exam, err := audio.ReadWAVFile(filepath.Join(recDir, "examiner.wav"))
			if err != nil {
				t.Fatal(err)
			}
			sound := func(x int16) bool { return x != 0 }
			first := slices.IndexFunc(exam.Samples, sound)
			// An instant on the recording's timeline: the first clip began at its first sample
			// (espeak-ng leads a line with about 12 ms of digital silence, inside the margin).
			at := func(when time.Time) int { return first + int(when.Sub(plays[0].start)*audio.SampleRate/time.Second) }
			margin := audio.SampleRate / 20 // 50 ms
			from, to := at(paused[0])+margin, at(resumed[0])-margin
			if from < 0 || to+audio.SampleRate/2 > len(exam.Samples) || from >= to {
				t.Fatalf("the pause (%d-%d) is not on examiner.wav's %d samples", from, to, len(exam.Samples))
			}
			if i := slices.IndexFunc(exam.Samples[from:to], sound); i >= 0 {
				t.Errorf("examiner.wav has the line's audio %v into its pause of %v: the audio after the pause is not where it was heard",
					time.Duration(i+margin)*time.Second/audio.SampleRate, hold)
			}
			if !slices.ContainsFunc(exam.Samples[to+margin:to+margin+audio.SampleRate/2], sound) {
				t.Errorf("examiner.wav is silent for 0.5 s after the line resumed")
			}
			t.Logf("figures: %s onset-to-silence (pause) %d ms, paused %d ms", tc.name, paused[0].Sub(onset).Milliseconds(), hold.Milliseconds())
		})
	}
}

// withRoom is a sound as a microphone picks it up: a lead-in and, so the endpointer can close
// the turn, a second after it, all over a room's noise floor.
func withRoom(sound []int16, seed uint64) []int16 {
	s := make([]int16, audio.SampleRate*4/10)
	s = append(s, sound...)
	s = append(s, make([]int16, audio.SampleRate)...)
	audio.AddNoise(s, -50, seed)
	return s
}

// firstLoud is the first sample of s above the room's noise (−50 dBFS; this is −36 dBFS).
func firstLoud(s []int16) int {
	return max(0, slices.IndexFunc(s, func(x int16) bool { return x > 500 || x < -500 }))
}

package audio

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// countingSphinx counts one-shot recognitions; its stream is the real one.
type countingSphinx struct {
	*Sphinx
	oneShot atomic.Int32
}

func (c *countingSphinx) Transcribe(ctx context.Context, u Utterance) (Transcript, error) {
	c.oneShot.Add(1)
	return c.Sphinx.Transcribe(ctx, u)
}

func (st *sphinxStream) currentProc() *sphinxProc {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.proc
}

// streamTurnScene is "Because", a 1.5 s thinking pause, "most guests are business travellers."
func streamTurnScene(t *testing.T) []int16 {
	return buildScene(SampleRate, speak16k(t, "Because"), 1500, speak16k(t, "most guests are business travellers."), 3500).samples
}

const streamTurnText = "because most guests are business travellers"

// TestVoiceStreamsRecognition: espeak-ng speech through a Voice whose recogniser streams. With
// the fixed endpoint and with the adaptive one (the pause read, held on "because", then resumed
// and read again), the whole answer is one turn heard right, all on the stream's one process:
// not a single one-shot recognition.
func TestVoiceStreamsRecognition(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []VoiceOption
	}{
		{"fixed", []VoiceOption{WithVoiceEndpointing(EndpointConfig{MinEndpointingDelay: 2 * time.Second, MaxEndpointingDelay: 3 * time.Second,
			PreRoll: 200 * time.Millisecond, PostRoll: 200 * time.Millisecond, MaxUtterance: time.Minute})}},
		{"adaptive", func() []VoiceOption {
			cfg := DefaultEndpointConfig()
			cfg.CompleteEndpointingDelay = DefaultCompleteEndpointingDelay
			return []VoiceOption{WithVoiceEndpointing(cfg), WithTurnClassifier(ClassifyTranscript)}
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := newTestSphinx(t, []string{"because", streamTurnText, "sorry could you repeat the question"})
			rec := &countingSphinx{Sphinx: sp}
			log := newEventLog()
			v := startVoice(t, NewClipSource(streamTurnScene(t), true), rec, nil, nil, append([]VoiceOption{WithOnEvent(log.add)}, tc.opts...)...)
			st, ok := v.stream.(*sphinxStream)
			if !ok {
				t.Fatalf("the voice did not open a stream on a streaming recogniser (%T)", v.stream)
			}
			proc := st.currentProc()
			f := log.wait(t, 1)[0]
			if f.Text != streamTurnText {
				t.Errorf("heard %q, want %q", f.Text, streamTurnText)
			}
			if n := rec.oneShot.Load(); n != 0 {
				t.Errorf("%d one-shot recognitions, want none: the stream heard the turn", n)
			}
			if st.currentProc() != proc {
				t.Error("the recogniser process was replaced")
			}
			t.Logf("STT at the endpoint %.1f ms, endpointing %.0f ms", f.STTMs, f.EndpointingMs)
		})
	}
}

// TestVoiceStreamDiesMidTurn: the stream's recogniser is killed as the candidate starts
// speaking. The turn is still heard, and promptly (a dead recogniser never stalls a turn): by a
// restarted process that is fed the turn from its start, or, while restarts are held back, by
// the one-shot path.
func TestVoiceStreamDiesMidTurn(t *testing.T) {
	turn := "sorry could you repeat the question"
	for _, tc := range []struct {
		name         string
		restartEvery time.Duration
		oneShot      int32
	}{
		{"restarted", 0, 0},
		{"fallback", time.Hour, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := newTestSphinx(t, []string{turn, streamTurnText})
			rec := &countingSphinx{Sphinx: sp}
			log := newEventLog()
			var v *Voice
			var dead atomic.Pointer[sphinxProc]
			onEvent := func(e Event) {
				if e.Kind == EventSpeechStarted && dead.Load() == nil {
					p := v.stream.(*sphinxStream).currentProc() // on the capture loop, after Start set v.stream
					p.kill()
					<-p.done
					dead.Store(p)
				}
				log.add(e)
			}
			samples := buildScene(SampleRate, speak16k(t, turn), 1500).samples
			v, err := NewVoice(NewClipSource(samples, true), rec, nil, nil, WithOnEvent(onEvent))
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			st := v.stream.(*sphinxStream)
			st.mu.Lock()
			st.restartEvery = tc.restartEvery
			st.mu.Unlock()
			f := log.wait(t, 1)[0]
			if dead.Load() == nil {
				t.Fatal("the recogniser was never killed")
			}
			if f.Text != turn {
				t.Errorf("heard %q, want %q", f.Text, turn)
			}
			if n := rec.oneShot.Load(); n != tc.oneShot {
				t.Errorf("%d one-shot recognitions, want %d", n, tc.oneShot)
			}
			if restarted := st.currentProc() != dead.Load(); restarted != (tc.restartEvery == 0) {
				t.Errorf("restarted %v", restarted)
			}
			if f.STTMs > float64(streamWait.Milliseconds()) {
				t.Errorf("recognition took %.0f ms after the endpoint: the dead stream was waited for", f.STTMs)
			}
		})
	}
}

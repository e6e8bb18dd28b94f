package audio

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
)

// voicedTranscriber starts a transcription server that answers each request, after delay, with
// the text pick gives for how long the audio sent is voiced: a turn read at any pause (early,
// at its first quiet frames, or after the hangover) is heard as what was said so far.
func voicedTranscriber(t testing.TB, delay time.Duration, pick func(voiced time.Duration) string) *openaitest.Server {
	t.Helper()
	return openaitest.New(t, openaitest.WithAPIKey("sk-test"), openaitest.WithTranscriber(
		func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
			pcm, err := openaitest.ReadWAV(bytes.NewReader(req.File))
			if err != nil {
				return openaitest.Status(400, openaitest.ErrorBody("invalid_request_error", "", err.Error()))
			}
			text := pick(openaitest.VoicedLength(pcm.Samples, pcm.SampleRate))
			return openaitest.Transcribed(openaitest.Transcript{Text: text}, openaitest.Delay(delay))
		}))
}

// runEarlyTurn runs samples through a voice with the room's adaptive endpointing (the VAD's
// hangover 100 ms) and returns its first final transcript and the voice's counts.
func runEarlyTurn(t *testing.T, samples []int16, srv *openaitest.Server) (FinalTranscript, VoiceStats) {
	t.Helper()
	cfg := DefaultEndpointConfig()
	cfg.CompleteEndpointingDelay = DefaultCompleteEndpointingDelay
	cfg.VAD.Hangover = 100 * time.Millisecond
	log := newEventLog()
	v := startVoice(t, NewClipSource(samples, true), newTestRecognizer(t, srv), nil, nil,
		WithOnEvent(log.add), WithVoiceEndpointing(cfg), WithTurnClassifier(ClassifyTranscript))
	defer v.Close()
	f := log.wait(t, 1)[0]
	return f, v.Stats()
}

// TestVoiceReadsAPauseAtItsFirstQuietFrames: a complete answer read by a recogniser that takes
// 180 ms. The reading starts at the pause's first quiet frames (earlyPauseRead), not when the
// VAD's hangover has run out, so it is done before the complete-answer wait is over and the
// turn ends after that wait (250 ms and the frame it is decided on). Read after the hangover,
// it ended 100 + 180 ms after the speech at the earliest.
func TestVoiceReadsAPauseAtItsFirstQuietFrames(t *testing.T) {
	a := speak16k(t, "Most guests at that time are business travellers.")
	sc := buildScene(SampleRate/2, a, 1500)
	srv := voicedTranscriber(t, 180*time.Millisecond, func(time.Duration) string {
		return "Most guests at that time are business travellers."
	})
	f, _ := runEarlyTurn(t, sc.samples, srv)
	if f.Utterance.Delay != DefaultCompleteEndpointingDelay {
		t.Fatalf("the answer waited %v, want the complete-answer delay %v", f.Utterance.Delay, DefaultCompleteEndpointingDelay)
	}
	if limit := float64((DefaultCompleteEndpointingDelay + 2*FrameDuration).Milliseconds()); f.EndpointingMs > limit {
		t.Errorf("the turn ended %.0f ms after the speech, want at most %.0f: the pause was read late", f.EndpointingMs, limit)
	}
	t.Logf("endpointing %.0f ms, STT at the endpoint %.1f ms", f.EndpointingMs, f.STTMs)
}

// TestVoiceEarlyReadingDroppedWhenSpeechGoesOn: a 70 ms gap inside an answer is long enough to
// start an early reading (which hears a complete sentence) and shorter than the hangover. The
// candidate goes on, so that reading must release nothing: the turn is the whole answer.
func TestVoiceEarlyReadingDroppedWhenSpeechGoesOn(t *testing.T) {
	a := speak16k(t, "Most guests are business travellers")
	b := speak16k(t, "who are in a hurry in the morning.")
	sc := buildScene(SampleRate/2, a, 70, b, 1500)
	whole := openaitest.VoicedLength(a, SampleRate) + openaitest.VoicedLength(b, SampleRate) - 150*time.Millisecond
	srv := voicedTranscriber(t, 0, func(voiced time.Duration) string {
		if voiced > whole {
			return "Most guests are business travellers who are in a hurry in the morning."
		}
		return "Most guests are business travellers."
	})
	f, st := runEarlyTurn(t, sc.samples, srv)
	if !strings.HasSuffix(f.Text, "morning.") {
		t.Fatalf("final %q: the turn was ended inside the answer", f.Text)
	}
	if st.EarlyDropped == 0 || st.EarlyDropped >= st.EarlyReads {
		t.Errorf("%d early readings, %d dropped: want the gap's dropped and the end's kept", st.EarlyReads, st.EarlyDropped)
	}
	t.Logf("%d early readings, %d dropped", st.EarlyReads, st.EarlyDropped)
	if f.Utterance.Delay != DefaultCompleteEndpointingDelay {
		t.Errorf("the answer waited %v, want the complete-answer delay %v", f.Utterance.Delay, DefaultCompleteEndpointingDelay)
	}
}

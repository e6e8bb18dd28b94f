package audio

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
)

func TestClassifyTurn(t *testing.T) {
	cases := []struct {
		text string
		want TurnEnd
	}{
		{"Most guests are business travellers.", TurnComplete},
		{"most guests are business travellers", TurnComplete},
		{"Because", TurnTrailing},
		{"most guests are um", TurnTrailing},
		{"we could add a second line and", TurnTrailing},
		{"eggs, toast,", TurnTrailing},
		{"yes", TurnUnsure},
		{"", TurnUnsure},
		{InterimText, TurnUnsure},
	}
	for _, tc := range cases {
		if got := ClassifyTurn(tc.text); got != tc.want {
			t.Errorf("ClassifyTurn(%q) = %s, want %s", tc.text, got, tc.want)
		}
	}
}

func TestEndpointerReleaseShortensTheWait(t *testing.T) {
	speech := speak16k(t, "Most guests are business travellers.")
	sc := buildScene(SampleRate/2, speech, 2000)
	for _, tc := range []struct {
		name    string
		release bool
		sure    bool
		want    time.Duration
	}{{"ordinary wait", false, false, 500 * time.Millisecond}, {"complete answer", true, false, 250 * time.Millisecond},
		{"sure answer", true, true, 150 * time.Millisecond}} {
		cfg := DefaultEndpointConfig()
		cfg.CompleteEndpointingDelay = DefaultCompleteEndpointingDelay
		cfg.SureEndpointingDelay = DefaultSureEndpointingDelay
		cfg.VAD.Hangover = 100 * time.Millisecond // as the adaptive end of turn has it: the pause is read in time
		ep, err := NewEndpointer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got *Utterance
		for _, f := range frames(sc.samples) {
			r := ep.Push(f)
			switch {
			case r.Paused && tc.sure:
				ep.ReleaseSure()
			case r.Paused && tc.release:
				ep.Release()
			}
			if r.Utterance != nil {
				got = r.Utterance
				break
			}
		}
		if got == nil || got.Delay != tc.want {
			t.Fatalf("%s: utterance %+v, want delay %v", tc.name, got, tc.want)
		}
		if wait := time.Duration(got.DecidedMs-got.EndMs) * time.Millisecond; wait < tc.want || wait > tc.want+2*FrameDuration {
			t.Errorf("%s: decided %v after the speech, want %v", tc.name, wait, tc.want)
		}
	}
	bad := DefaultEndpointConfig()
	bad.CompleteEndpointingDelay = time.Second // longer than the ordinary delay
	if _, err := NewEndpointer(bad); err == nil {
		t.Error("a complete-answer delay above the min delay was accepted")
	}
	bad = DefaultEndpointConfig()
	bad.CompleteEndpointingDelay = DefaultSureEndpointingDelay
	bad.SureEndpointingDelay = DefaultCompleteEndpointingDelay // longer than the complete-answer delay
	if _, err := NewEndpointer(bad); err == nil {
		t.Error("a sure-answer delay above the complete-answer delay was accepted")
	}
}

// TestClassifyTranscript: a complete answer of four words or more that does not stop on a
// filler is sure, whatever the recogniser's confidence, unless the recogniser flags it as a
// failed recognition; trailing words and fillers keep their waits.
func TestClassifyTranscript(t *testing.T) {
	heard := func(text string, conf float64) Transcript {
		return Transcript{Text: text, Confidence: conf, MinConfidence: conf, HasConfidence: true}
	}
	whisperTypical := SegmentConfidence(-0.29, 0.01) // OpenAI's own verbose_json example
	cases := []struct {
		t    Transcript
		want TurnEnd
	}{
		{heard("Most guests are business travellers.", 0.95), TurnSure},
		{heard("most guests are business travellers", whisperTypical), TurnSure},
		{heard("Most guests are business travellers.", SegmentConfidence(-1.2, 0.02)), TurnComplete}, // Whisper's failed decode
		{heard("Most guests are business travellers.", SegmentConfidence(-0.3, 0.7)), TurnComplete},  // Whisper's "no speech"
		{Transcript{Text: "Most guests are business travellers.", Confidence: 0.9, MinConfidence: 0.2, HasConfidence: true}, TurnComplete},
		{Transcript{Text: "Most guests are business travellers.", Confidence: 1, MinConfidence: 1}, TurnSure}, // no confidence reported
		{heard("a double room please", 0.95), TurnSure},
		{heard("a double room", 0.99), TurnComplete}, // three words
		{heard("I would like it, well", 0.99), TurnComplete},
		{heard("the breakfast is fine you know", 0.99), TurnComplete},
		{heard("the breakfast is fine I mean", 0.99), TurnComplete},
		{heard("Because,", 0.99), TurnTrailing},
		{heard("we could add a second line and", 0.99), TurnTrailing},
		{heard("most guests are um", 0.99), TurnTrailing},
		{heard("yes", 0.99), TurnUnsure},
	}
	for _, tc := range cases {
		if got := ClassifyTranscript(tc.t); got != tc.want {
			t.Errorf("ClassifyTranscript(%q, %.2f/%.2f, %v) = %s, want %s", tc.t.Text, tc.t.Confidence, tc.t.MinConfidence, tc.t.HasConfidence, got, tc.want)
		}
	}
}

// FuzzClassifyTranscript: sure only where the text alone reads complete, never on a trailing
// word or a filler, never on a transcript the recogniser flagged; and the confidence only ever
// takes sure away (it never makes a reading other than the text's).
func FuzzClassifyTranscript(f *testing.F) {
	for _, s := range []string{"Most guests are business travellers.", "Because,", "a b c um", "I think it is fine well"} {
		f.Add(s, 0.9, 0.9, true)
		f.Add(s, 0.9, 0.1, true)
	}
	f.Fuzz(func(t *testing.T, text string, conf, minConf float64, has bool) {
		tr := Transcript{Text: text, Confidence: conf, MinConfidence: minConf, HasConfidence: has}
		got := ClassifyTranscript(tr)
		unflagged := ClassifyTranscript(Transcript{Text: text})
		if got != TurnSure {
			if got != ClassifyTurn(text) {
				t.Fatalf("%q: %s, but the text alone reads %s", text, got, ClassifyTurn(text))
			}
			if unflagged == TurnSure && !Flagged(tr) {
				t.Fatalf("%q (%.2f/%.2f): %s, but sure without a confidence and not flagged", text, conf, minConf, got)
			}
			return
		}
		words := strings.Fields(strings.ToLower(text))
		last := strings.Trim(words[len(words)-1], `.,!?;:"'()`)
		if ClassifyTurn(text) != TurnComplete || LooksUnfinished(text) || fillers[last] || Flagged(tr) || unflagged != TurnSure {
			t.Fatalf("%q (%.2f/%.2f, %v) read as sure", text, conf, minConf, has)
		}
	})
}

// TestVoiceAdaptiveEndOfTurn speaks "Good morning, I would like", pauses 1.2 s, then "a table
// for two by the window.": the trailing partial holds the turn through the pause, the complete
// one ends it after the short delay, and the final transcript is the one made during the pause
// (the whole turn is transcribed once). The recogniser answers by how much audio it is sent, so
// pauses read early (at a gap between words, then dropped as the speech goes on) are heard as
// what they are.
func TestVoiceAdaptiveEndOfTurn(t *testing.T) {
	a := speak16k(t, "Good morning, I would like")
	b := speak16k(t, "a table for two by the window.")
	sc := buildScene(SampleRate, a, 1200, b, 2000)
	// Heard as the whole turn: all of "a" and all but its last 150 ms of "b".
	wholeVoiced := openaitest.VoicedLength(a, SampleRate) + openaitest.VoicedLength(b, SampleRate) - 150*time.Millisecond
	var whole atomic.Int32 // transcriptions of the whole turn
	srv := voicedTranscriber(t, 0, func(voiced time.Duration) string {
		if voiced > wholeVoiced {
			whole.Add(1)
			return "Good morning, I would like a table for two by the window."
		}
		return "Good morning, I would like"
	})
	finals := runAdaptiveTurn(t, sc.samples, srv)
	f := finals[0]
	if !strings.HasSuffix(f.Text, "window.") {
		t.Fatalf("final %q: the pause after %q should have been held", f.Text, "like")
	}
	if f.Utterance.Delay != DefaultCompleteEndpointingDelay {
		t.Errorf("the complete answer waited %v, want %v", f.Utterance.Delay, DefaultCompleteEndpointingDelay)
	}
	if n := whole.Load(); n != 1 {
		t.Errorf("the whole turn was transcribed %d times, want once (the final reuses the pause's)", n)
	}
	t.Logf("endpointing %.0f ms, STT at the endpoint %.1f ms", f.EndpointingMs, f.STTMs)
}

func TestPlausibleWords(t *testing.T) {
	cases := []struct {
		text string
		d    time.Duration
		want bool
	}{
		{"most guests are business travellers", 2 * time.Second, true},
		{"sorry", 400 * time.Millisecond, true},
		{"that raises the labour cost but the conference revenue pays for it", 500 * time.Millisecond, false},
	}
	for _, tc := range cases {
		if got := plausibleWords(tc.text, tc.d); got != tc.want {
			t.Errorf("plausibleWords(%q, %v) = %v", tc.text, tc.d, got)
		}
	}
}

// TestVoiceSlowRecogniserDoesNotCutAThinkingPause: the pause after "Because" is read by a
// recogniser slower than the min delay. The turn must be held while it works, then by the
// trailing word, so the answer stays one turn.
func TestVoiceSlowRecogniserDoesNotCutAThinkingPause(t *testing.T) {
	a := speak16k(t, "Because")
	b := speak16k(t, "most guests are business travellers.")
	sc := buildScene(SampleRate, a, 1500, b, 2000)
	srv, _ := numberedTranscriber(t, func(n int) openaitest.Behaviour {
		if n == 1 {
			return openaitest.Transcribed(openaitest.Transcript{Text: "Because"}, openaitest.Delay(800*time.Millisecond))
		}
		return openaitest.Transcribed(openaitest.Transcript{Text: "Because most guests are business travellers."})
	})
	finals := runAdaptiveTurn(t, sc.samples, srv)
	// One turn spanning both parts: longer than "Because" and the pause together.
	if f := finals[0]; f.DurationMs < int64(len(a))*1000/SampleRate+1500 {
		t.Fatalf("first turn lasted %d ms: it was cut in the pause after %q", f.DurationMs, "Because")
	}
}

// runAdaptiveTurn runs samples through a Voice with the adaptive end of turn and the
// recogniser at srv, and returns the first final transcript's events.
func runAdaptiveTurn(t *testing.T, samples []int16, srv *openaitest.Server) []FinalTranscript {
	t.Helper()
	cfg := DefaultEndpointConfig()
	cfg.CompleteEndpointingDelay = DefaultCompleteEndpointingDelay
	log := newEventLog()
	v := startVoice(t, NewClipSource(samples, true), newTestRecognizer(t, srv), nil, nil,
		WithOnEvent(log.add), WithVoiceEndpointing(cfg), WithTurnClassifier(ClassifyTranscript))
	defer v.Close() // each call's voice ends here, not with the test
	return log.wait(t, 1)
}

// TestTrailingWordsPerLanguage: each language's words that cannot end a sentence hold the
// turn in that language ("parce que…"), and only there: English "the" ends nothing special in
// French, and a French sentence ending on a noun is complete.
func TestTrailingWordsPerLanguage(t *testing.T) {
	fr := NewTrailingWords([]string{"et", "parce que", "parce", "le", "de"}, []string{"euh"})
	ar := NewTrailingWords([]string{"و", "لأن", "في"}, []string{"يعني"})
	de := NewTrailingWords([]string{"weil", "und", "der"}, []string{"ähm"})
	for _, tc := range []struct {
		name string
		w    TrailingWords
		text string
		want bool
	}{
		{"fr parce que", fr, "Je pense que non parce que", true},
		{"fr parce qu'", fr, "C'est important parce", true},
		{"fr filler", fr, "Le télétravail est utile, euh", true},
		{"fr complete", fr, "Le télétravail est un progrès", false},
		{"fr english word", fr, "Je vais à the", false},
		{"ar because (hamza)", ar, "لا أوافق لأن", true},
		{"ar because (bare alef)", ar, "لا أوافق لان", true},
		{"ar because (vowelled)", ar, "لا أوافق لِأَنَّ", true},
		{"ar arabic comma", ar, "أعتقد ذلك،", true},
		{"ar complete", ar, "القراءة مهمة", false},
		{"ar question mark", ar, "هل تقصدون الكتب؟", false},
		{"de weil", de, "Ich finde das gut, weil", true},
		{"de complete", de, "Ich finde das gut", false},
		{"zero value is English", TrailingWords{}, "I think that because", true},
	} {
		if got := tc.w.LooksUnfinished(tc.text); got != tc.want {
			t.Errorf("%s: LooksUnfinished(%q) = %v, want %v", tc.name, tc.text, got, tc.want)
		}
	}
	if got := fr.ClassifyTurn("Je ne suis pas d'accord parce que"); got != TurnTrailing {
		t.Errorf("fr ClassifyTurn = %s, want trailing", got)
	}
	if got := fr.ClassifyTurn("Je ne suis pas d'accord avec cela"); got != TurnComplete {
		t.Errorf("fr ClassifyTurn = %s, want complete", got)
	}
}

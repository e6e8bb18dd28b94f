package app_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec/lang"
)

// frenchVoices is espeak-ng keeping the voice each examiner line was said in.
type frenchVoices struct {
	*audio.Espeak
	mu     sync.Mutex
	voices []string
}

func (v *frenchVoices) Synthesize(ctx context.Context, text string, o audio.SpeakOptions) (audio.Clip, error) {
	v.mu.Lock()
	v.voices = append(v.voices, o.Voice)
	v.mu.Unlock()
	return v.Espeak.Synthesize(ctx, text, o)
}

// TestFrenchExamByVoice: the French oral through the microphone path. The candidate speaks
// French (espeak-ng's French voice, over a noise floor) into the real VAD and endpointing; the
// recogniser is the stand-in on the OpenAI wire, asked for French, answering the French words
// of the audio it is sent (known by how long its speech lasts); the examiner speaks with the
// French pack's espeak-ng voice; the examiner is the model (go-openai against the stand-in). An
// answer that pauses after "parce que" is one turn (the French trailing words hold it), the
// model's French verdict on it is intercepted, "Pouvez-vous répéter la question, s'il vous
// plaît ?" is a repeat, and no English fixed line is spoken.
func TestFrenchExamByVoice(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio and espeak-ng")
	voiceNullALSA(t)
	ctx := context.Background()
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	const (
		first  = "Bonjour, je m'appelle Camille Martin et je prépare le DELF B2 parce que"
		rest   = "je voudrais étudier à Lyon."
		repeat = "Pouvez-vous répéter la question, s'il vous plaît ?"
	)
	speak := func(text string) []int16 {
		c, err := espeak.Synthesize(ctx, text, audio.SpeakOptions{Voice: "fr-fr", Language: "fr"})
		if err != nil {
			t.Fatal(err)
		}
		c16, err := c.To16k()
		if err != nil {
			t.Fatal(err)
		}
		return c16.Samples
	}
	silence := func(d time.Duration) []int16 { return make([]int16, int(d.Seconds()*audio.SampleRate)) }
	a, b, r := speak(first), speak(rest), speak(repeat)
	// The answer: a pause of 1.2 s after "parce que" (longer than the endpointing's shortest
	// wait, shorter than its longest), then the rest.
	answer := append(append(append(append(silence(400*time.Millisecond), a...), silence(1200*time.Millisecond)...), b...), silence(time.Second)...)
	request := append(append(silence(400*time.Millisecond), r...), silence(time.Second)...)
	audio.AddNoise(answer, -50, 1)
	audio.AddNoise(request, -50, 2)
	texts := []struct {
		text  string
		voice time.Duration
	}{{first, loudFor(a)}, {rest, loudFor(b)}, {first + " " + rest, loudFor(a) + loudFor(b)}, {repeat, loudFor(r)}}
	for i := range texts {
		for j := range i {
			if d := texts[i].voice - texts[j].voice; d.Abs() < 300*time.Millisecond {
				t.Fatalf("%q and %q last %s and %s: too close for the recogniser to tell apart", texts[j].text, texts[i].text, texts[j].voice, texts[i].voice)
			}
		}
	}
	var mu sync.Mutex
	var langs []string
	// The examiner (go-openai against the same stand-in) judges the answer in French, which
	// the verdict filter must intercept; any other turn gets a neutral probe.
	const verdict = "C'est exact, excellente réponse."
	examiner := openaitest.WithDefault(func(req *openaitest.ChatRequest) openaitest.Behaviour {
		var last string
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = m.Content
			}
		}
		if strings.Contains(last, "étudier à Lyon") {
			return openaitest.ToolCall(runtimetest.Args{AnswerQuality: "substantive", SpokenText: verdict}.String())
		}
		return openaitest.ToolCall(runtimetest.Args{SpokenText: "Pouvez-vous développer votre point de vue ?"}.String())
	})
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), examiner, openaitest.WithTranscriber(func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
		clip, err := audio.ReadWAV(bytes.NewReader(req.File))
		if err != nil {
			return openaitest.Status(400)
		}
		mu.Lock()
		langs = append(langs, req.Language)
		mu.Unlock()
		got, best, text := loudFor(clip.Samples), 250*time.Millisecond, ""
		for _, c := range texts {
			if d := (got - c.voice).Abs(); d < best {
				best, text = d, c.text
			}
		}
		return openaitest.Transcribed(openaitest.Transcript{Text: text, Language: "french"})
	}))
	endpointtest.Isolate(t, map[string]string{"EXAMTUI_STT_BASE_URL": srv.URL(), "EXAMTUI_STT_API_KEY": "sk-test",
		"EXAMTUI_LLM_BASE_URL": srv.URL(), "EXAMTUI_LLM_API_KEY": "sk-test", "EXAMTUI_LLM_MODEL": "gpt-4o-mini"})
	x := apptest.OpenExam(ctx, t, app.Options{SpecPath: "../../../../examples/oral-fr-b2.yaml", Examiner: app.ExaminerLLM, NoStore: true})
	// The recogniser as run --mic makes it, for the exam's language.
	rec, status, err := app.NewRecognizer(app.SpeechAuto, "", x.Spec.Language, voiceTestLogger(t))
	if err != nil || rec == nil {
		t.Fatalf("recogniser: %v (%s)", err, status)
	}
	player, err := audio.OpenPlayer()
	if err != nil {
		t.Fatal(err)
	}
	synth := &frenchVoices{Espeak: espeak}
	src := newPushSource()
	// The adaptive end of turn, as run --mic and rooms have it: each pause's words are read.
	v, err := app.StartVoice(ctx, x, app.VoiceParts{Source: src, Recognizer: rec, Synthesizer: synth, Sink: player},
		app.WithVoiceSpeed(2), app.WithVoiceAdaptiveEndOfTurn(true), app.WithVoiceLogger(voiceTestLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var evMu sync.Mutex
	var events []runtime.Event
	x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		evMu.Lock()
		events = append(events, ev)
		evMu.Unlock()
	}))
	payloads := func() []runtime.Payload {
		evMu.Lock()
		defer evMu.Unlock()
		var out []runtime.Payload
		for _, ev := range events {
			if p, err := ev.Decode(); err == nil {
				out = append(out, p)
			}
		}
		return out
	}
	count := func(match func(runtime.Payload) bool) int {
		n := 0
		for _, p := range payloads() {
			if match(p) {
				n++
			}
		}
		return n
	}
	isSpoken := func(p runtime.Payload) bool { _, ok := p.(*runtime.SpokenPayload); return ok }
	spoken := 0
	quiet := func() {
		t.Helper()
		testutil.Eventually(t, 60*time.Second, func() bool {
			return count(isSpoken) > spoken && v.Idle() && v.Audio().State() != audio.StateExaminerSpeaking
		}, "the examiner to finish speaking")
		spoken = count(isSpoken)
		time.Sleep(400 * time.Millisecond) // the half-duplex tail: the microphone opens again
	}
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// In real time, as a microphone delivers it: the pause after « parce que » is a pause on
	// the wall clock the end of turn waits on.
	paced := func(samples []int16) {
		step := audio.FrameSamples * 5 // 100 ms
		for off := 0; off < len(samples); off += step {
			src.push(samples[off:min(off+step, len(samples))])
			time.Sleep(100 * time.Millisecond)
		}
	}
	quiet()
	paced(answer)
	testutil.Eventually(t, 60*time.Second, func() bool {
		return count(func(p runtime.Payload) bool { _, ok := p.(*runtime.ObservationPayload); return ok }) == 1
	}, "the answer's turn")
	var heard []string
	for _, p := range payloads() {
		if s, ok := p.(*runtime.TranscriptSegmentPayload); ok && s.Speaker == "candidate" && s.IsFinal {
			heard = append(heard, s.Text)
		}
	}
	if len(heard) != 1 || !strings.Contains(heard[0], "parce que je voudrais") {
		t.Fatalf("the candidate's turns %q: want one turn, held over the pause after « parce que »", heard)
	}
	quiet()
	paced(request)
	testutil.Eventually(t, 60*time.Second, func() bool {
		return count(func(p runtime.Payload) bool {
			c, ok := p.(*runtime.CommandAcknowledgedPayload)
			return ok && c.Command == "repeat" && c.Accepted
		}) == 1
	}, "the French repeat request honoured")
	quiet()

	intercepted := 0
	for _, p := range payloads() {
		if g, ok := p.(*runtime.GuardrailTriggeredPayload); ok && g.Guardrail == string(runtime.FilterForbiddenAction) && strings.Contains(g.OriginalText, "C'est exact") {
			intercepted++
		}
	}
	if intercepted == 0 {
		t.Errorf("the French verdict %q was not intercepted", verdict)
	}
	en := lang.English()
	for _, p := range payloads() {
		s, ok := p.(*runtime.SpokenPayload)
		if !ok {
			continue
		}
		if strings.Contains(s.Text, "C'est exact") || strings.Contains(s.Text, "excellente réponse") {
			t.Errorf("the French verdict was spoken: %q", s.Text)
		}
		for _, k := range lang.LineKeys {
			if strings.Contains(s.Text, en.Line(k)) {
				t.Errorf("the English line %s was spoken: %q", k, s.Text)
			}
		}
	}
	synth.mu.Lock()
	for _, voice := range synth.voices {
		if voice != "fr-fr" {
			t.Errorf("an examiner line said in voice %q, want the French pack's fr-fr", voice)
		}
	}
	synth.mu.Unlock()
	mu.Lock()
	for _, l := range langs {
		if l != "fr" {
			t.Errorf("the recogniser was asked for %q, want fr", l)
		}
	}
	mu.Unlock()
}

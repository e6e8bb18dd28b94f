package voicepath

import (
	"testing"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/spec"
)

// TestPathSpeaksTheExamsLanguage: on a French exam the path's end of turn holds the turn on
// French trailing words ("parce que") and the examiner speaks with the French pack's espeak-ng
// voice unless a voice is configured; an English exam keeps English words and no default.
func TestPathSpeaksTheExamsLanguage(t *testing.T) {
	src, err := examples.FS.ReadFile("oral-fr-b2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fr, _, err := spec.Compile("oral-fr-b2.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	ctrl := func(e *spec.Exam) *runtime.Controller {
		ex, err := offline.New()
		if err != nil {
			t.Fatal(err)
		}
		c, err := runtime.NewController(e, ex)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	frc := ctrl(fr)
	p, _ := newPath(t, frc)
	if p.cfg.vocab != frc.Vocabulary() || p.cfg.vocab == englishVocabulary {
		t.Error("a French exam's path does not read the backchannels of the French pack's vocabulary")
	}
	if got := p.endOfTurn(audio.Transcript{Text: "Je ne suis pas d'accord parce que"}); got.String() != "trailing" {
		t.Errorf("French trailing words: %s, want trailing", got)
	}
	if got := p.endOfTurn(audio.Transcript{Text: "Je ne suis pas d'accord avec cela"}); got != audio.TurnSure {
		t.Errorf("a complete French sentence with no confidence reading: %s, want sure", got)
	}
	doubtful := audio.Transcript{Text: "Je ne suis pas d'accord avec cela", HasConfidence: true, Confidence: 0.2, MinConfidence: 0.2}
	if got := p.endOfTurn(doubtful); got != audio.TurnComplete {
		t.Errorf("a complete French sentence the recogniser failed to decode: %s, want complete", got)
	}
	sure := audio.Transcript{Text: "Je ne suis pas d'accord avec cela", HasConfidence: true, Confidence: 0.95, MinConfidence: 0.95}
	if got := p.endOfTurn(sure); got != audio.TurnSure {
		t.Errorf("a confident complete French sentence: %s, want sure", got)
	}
	sure.Text = "Je ne suis pas d'accord parce que"
	if got := p.endOfTurn(sure); got != audio.TurnTrailing {
		t.Errorf("a confident French sentence on parce que: %s, want trailing", got)
	}
	if v := p.defaultVoice(); v != "fr-fr" {
		t.Errorf("default voice %q, want the French pack's fr-fr", v)
	}
	p2, _ := newPath(t, ctrl(fr), WithDefaultVoice("mb-fr1"))
	if v := p2.defaultVoice(); v != "mb-fr1" {
		t.Errorf("configured voice %q, want mb-fr1", v)
	}
	en, _ := newPath(t, ctrl(exam(t, "")))
	if got := en.endOfTurn(audio.Transcript{Text: "I think that because"}); got.String() != "trailing" {
		t.Errorf("English trailing words: %s", got)
	}
	if got := en.endOfTurn(audio.Transcript{Text: "Je ne suis pas d'accord parce que"}); got.String() == "trailing" {
		t.Error("French words hold the turn in an English exam")
	}
}

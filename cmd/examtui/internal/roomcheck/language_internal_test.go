package roomcheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

// TestCandidateLanguage: the harness's candidate speaks the exam's language (the pack's
// espeak-ng voice, not "en-us" for every exam), and a spoken check of an exam the harness
// cannot hear (pocketsphinx knows English) is refused with what to do; a typed one runs.
func TestCandidateLanguage(t *testing.T) {
	for _, c := range []struct {
		tag, voice string
		spokenOK   bool
	}{{"en", "en-us", true}, {"en-GB", "en-us", true}, {"fr", "fr-fr", false}, {"de", "de", false}, {"es", "es", false}, {"ar", "ar", false}} {
		p, err := lang.Lookup(c.tag)
		if err != nil {
			t.Fatal(err)
		}
		if got := candidateVoice(p); got != p.Voice || got == "" {
			t.Errorf("%s: the candidate speaks with %q, want the pack's %q", c.tag, got, p.Voice)
		}
		if c.tag != "en" && c.tag != "en-GB" && candidateVoice(p) == "en-us" {
			t.Errorf("%s: the candidate speaks English", c.tag)
		}
		if err := (Options{}).checkLanguage(p); err != nil {
			t.Errorf("%s typed: %v", c.tag, err)
		}
		err = Options{Spoken: true}.checkLanguage(p)
		if c.spokenOK != (err == nil) {
			t.Errorf("%s spoken: %v", c.tag, err)
		}
		if err != nil && (!errors.Is(err, ErrSpokenLanguage) || !strings.Contains(err.Error(), "without --audio")) {
			t.Errorf("%s spoken: the refusal does not say what to do: %v", c.tag, err)
		}
	}
}

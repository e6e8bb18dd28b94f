package headless_test

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/spec/lang"
)

type spokenSink struct{ lines []string }

func (s *spokenSink) Publish(ev runtime.Event) error {
	if p, err := ev.Decode(); err == nil {
		if sp, ok := p.(*runtime.SpokenPayload); ok {
			s.lines = append(s.lines, sp.Text)
		}
	}
	return nil
}

// TestNonEnglishScriptsSpeakNoEnglish: every example script of an exam in another language
// than English runs without one English fixed line reaching the candidate, and with at least
// one of its own language's (its commands were answered in that language).
func TestNonEnglishScriptsSpeakNoEnglish(t *testing.T) {
	en := lang.English()
	ran := map[string]bool{}
	for _, name := range examples.Scripts() {
		s := loadExample(t, name)
		exam, err := s.CompileSpec()
		if err != nil {
			t.Fatal(err)
		}
		if lang.Base(exam.Language) == "en" {
			continue
		}
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			sink := &spokenSink{}
			r := runScript(t, s, headless.Options{Sink: sink})
			if !r.Passed {
				t.Fatalf("%s failed:\n%s", name, report(r))
			}
			p, err := lang.Lookup(exam.Language)
			if err != nil {
				t.Fatal(err)
			}
			own := 0
			for _, said := range sink.lines {
				for _, k := range lang.LineKeys {
					if strings.Contains(said, en.Line(k)) {
						t.Errorf("English line %s spoken in a %s exam: %q", k, exam.Language, said)
					}
					if strings.Contains(said, p.Line(k)) {
						own++
					}
				}
			}
			if own == 0 {
				t.Errorf("no %s fixed line spoken: %q", exam.Language, sink.lines)
			}
			ran[lang.Base(exam.Language)] = true
		})
	}
	for _, want := range []string{"ar", "de", "es", "fr"} {
		if !ran[want] {
			t.Errorf("no example script in %s", want)
		}
	}
}

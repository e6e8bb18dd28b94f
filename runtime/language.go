package runtime

import (
	"fmt"
	"sync"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// WithLanguagePacks sets the packs the exam's language is looked up in (default: the shipped
// packs, lang.Builtin; the wiring passes the shipped packs with the config file's added).
func WithLanguagePacks(r *lang.Registry) Option {
	return func(o *options) error {
		if r == nil {
			return fmt.Errorf("%w: nil language packs", ErrInvalidOption)
		}
		o.packs = r
		return nil
	}
}

// languagePack finds the exam's pack: its language, else the base language ("fr-CA" → "fr").
// An exam in a language with no pack cannot run: every line would be in another language.
func languagePack(exam *spec.Exam, r *lang.Registry) (*lang.Pack, error) {
	if r == nil {
		r = lang.Builtin()
	}
	tag := exam.Language
	if tag == "" {
		tag = spec.DefaultLanguage
	}
	p, err := r.Lookup(tag)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidExam, err)
	}
	return p, nil
}

// Language is the exam's language pack: what the wiring gives the voice path (the espeak-ng
// voice, the end-of-turn word classes) and the candidate page.
func (c *Controller) Language() *lang.Pack { return c.lang }

// Vocabulary is the words the controller's rules read: the ones built from the exam's pack, or
// WithVocabulary's. A voice path reads its backchannels from it.
func (c *Controller) Vocabulary() *Vocabulary { return c.vocab }

// line is the pack's fixed line of a key.
func (c *Controller) line(k lang.LineKey) string { return c.lang.Line(k) }

// lineThen is the pack's fixed line followed by the question it leads into.
func (c *Controller) lineThen(k lang.LineKey, question string) string {
	return c.lang.Then(k, question)
}

// perPack keeps what is built from a language pack (its normalized words), once per pack: the
// packs live as long as the process, and every exam in one language shares the result.
type perPack[T any] struct {
	m     sync.Map // *lang.Pack → T
	build func(*lang.Pack) T
}

// get is the value of pack p (English for nil), built on first use.
func (c *perPack[T]) get(p *lang.Pack) T {
	if p == nil {
		p = lang.English()
	}
	if v, ok := c.m.Load(p); ok {
		return v.(T)
	}
	v, _ := c.m.LoadOrStore(p, c.build(p))
	return v.(T)
}

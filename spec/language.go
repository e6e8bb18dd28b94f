package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/spec/lang"
)

// Thresholds of the prose-language warning: enough common words to judge, and clearly more of
// another language's than of the exam's.
const (
	proseMinHits  = 6
	proseMinShare = 0.12
)

// checkLanguage warns when the exam's candidate-facing prose (the nodes' intros, prompts,
// scenarios and follow-up probes, the silence prompt — never ids or the examiner's role
// message, which may be written for the model in another language) reads as another language
// than the exam's `language`. The guess counts each shipped pack's most frequent words.
func (c *checker) checkLanguage() {
	s := c.s
	tag := s.Language
	if tag == "" {
		tag = DefaultLanguage
	}
	if !languagePattern.MatchString(tag) {
		return
	}
	type field struct{ path, text string }
	var fields []field
	for i := range s.Nodes {
		n := &s.Nodes[i]
		p := fmt.Sprintf("nodes[%d].", i)
		fields = append(fields, field{p + "scenarioIntro", n.ScenarioIntro}, field{p + "conversationPrompt", n.ConversationPrompt},
			field{p + "scenario", n.Scenario})
		for _, st := range slices.Sorted(mapKeys(n.FollowUpProbes)) {
			for j, probe := range n.FollowUpProbes[st] {
				fields = append(fields, field{fmt.Sprintf("%sfollowUpProbes.%s[%d]", p, st, j), probe})
			}
		}
	}
	if s.Policies != nil && s.Policies.Silence != nil {
		fields = append(fields, field{"policies.silence.prompt", s.Policies.Silence.Prompt})
	}
	var all strings.Builder
	for _, f := range fields {
		all.WriteString(f.text)
		all.WriteByte(' ')
	}
	r := lang.Builtin()
	guess, hits, words := r.Guess(all.String())
	if guess == "" || lang.Base(guess) == lang.Base(tag) || hits < proseMinHits || float64(hits) < proseMinShare*float64(words) {
		return
	}
	own := 0
	if p, err := r.Lookup(tag); err == nil {
		own = p.Hits(all.String())
	}
	if own*2 >= hits {
		return
	}
	// Point at the first field that reads as the guessed language.
	at := "language"
	gp, _ := r.Lookup(guess)
	for _, f := range fields {
		if gp != nil && gp.Hits(f.text) >= 2 {
			at = f.path
			break
		}
	}
	c.warnf(at, fmt.Sprintf("set language: %s, or write the candidate's lines in %s", guess, tag),
		"the exam's prose reads as %s (%s), not as its language %q (%d of %d words are common %s words)",
		gp.Name, guess, tag, hits, words, guess)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// LanguagePackDiagnostics refuses an exam whose language has no pack in r (nil: the shipped
// packs) nor its base language's: every line it would hear would be in another language. The
// config file can add a pack (docs/languages.md).
func LanguagePackDiagnostics(s *Spec, r *lang.Registry) Diagnostics {
	if r == nil {
		r = lang.Builtin()
	}
	tag := s.Language
	if tag == "" {
		tag = DefaultLanguage
	}
	if !languagePattern.MatchString(tag) {
		return nil // reported by Validate
	}
	if _, err := r.Lookup(tag); err != nil {
		c := newChecker(s)
		c.errorf("language", "add a language pack under languages: in the config file (docs/languages.md)", "%v", err)
		return c.diags
	}
	return nil
}

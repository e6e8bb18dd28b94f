package runtime

import (
	"strings"

	"github.com/examtui/examtui/spec/lang"
)

// maxCommandWords bounds the utterances the rule-based classifier treats as commands: a long
// answer that happens to contain "move on" or "another way" is an answer, not a command.
const maxCommandWords = 14

// maxCommandContentWords bounds the words of a command utterance outside its command phrase
// and the courtesy words around it: "Could you repeat the question, please?" has none,
// "What do you mean by occupancy?" has one, an answer has several.
const maxCommandContentWords = 2

// CommandPhrases maps phrases to a command. A language's rules are its Vocabulary's Commands,
// built from its pack in the pack's command order; the longest phrase an utterance holds
// decides, ties going to the earlier rule.
type CommandPhrases struct {
	Command Command
	Phrases []string
}

// listener is what the controller listens for in one language: the command rules, the
// courtesy words around a command, and the replies to "are you sure?". It is built from the
// language's Vocabulary (itself built from the pack), normalized as the candidate's text is
// (normalizeWords).
type listener struct {
	rules        []CommandPhrases
	politeness   map[string]bool
	affirmatives []string
	negatives    []string
}

// listeners are the listeners built so far, one per pack.
var listeners = perPack[*listener]{build: func(p *lang.Pack) *listener { return newListener(vocabularyFor(p)) }}

// listenerFor is the listener of a pack (English when p is nil), built once per pack.
func listenerFor(p *lang.Pack) *listener { return listeners.get(p) }

// newListener builds the listener of a vocabulary.
func newListener(v *Vocabulary) *listener {
	l := &listener{politeness: map[string]bool{}}
	for _, r := range v.Commands {
		l.rules = append(l.rules, CommandPhrases{Command: r.Command, Phrases: normPhrases(r.Phrases)})
	}
	for _, w := range v.Politeness {
		for _, x := range strings.Fields(normPhrase(w)) {
			l.politeness[x] = true
		}
	}
	l.affirmatives = normPhrases(v.Affirmatives)
	l.negatives = normPhrases(v.Negatives)
	return l
}

func normPhrases(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if n := normPhrase(p); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// ClassifyCommand is the rule-based command classifier of English (ClassifyCommandIn).
func ClassifyCommand(text string) (Command, bool) { return ClassifyCommandIn(nil, text) }

// ClassifyCommandIn is the rule-based command classifier shared by the controller's safety net
// and the offline examiner, in the pack's language (English for nil). It looks only at short
// utterances, on word boundaries, and allows the language's courtesy words around a command
// ("Pouvez-vous répéter la question, s'il vous plaît ?" is a repeat).
func ClassifyCommandIn(p *lang.Pack, text string) (Command, bool) {
	return listenerFor(p).classify(text)
}

// classify is the rule-based command classifier in the listener's language.
func (l *listener) classify(text string) (Command, bool) {
	norm := normalizeWords(text)
	if n := len(norm); n < 3 {
		return "", false
	}
	words := 0
	for i := 1; i < len(norm); i++ {
		if norm[i] == ' ' {
			words++
		}
	}
	if words == 0 || words > maxCommandWords {
		return "", false
	}
	// The longest command phrase the utterance holds decides (ties: the rule order), so a
	// courtesy word that is also a command ("pardon", "عفوا") never hides the command it
	// introduces ("Pardon, que voulez-vous dire ?" is a clarification).
	var best Command
	bestPhrase := ""
	for _, r := range l.rules {
		for _, ph := range r.Phrases {
			if len(ph) > len(bestPhrase) && containsNorm(norm, ph) {
				best, bestPhrase = r.Command, ph
			}
		}
	}
	if bestPhrase == "" {
		return "", false
	}
	if !l.standalone(norm, bestPhrase) {
		// "To save money we should move on to a cheaper supplier" uses a command phrase
		// inside an answer: not a command.
		return "", false
	}
	return best, true
}

// standalone reports whether an utterance containing command phrase p is a command on its own:
// besides the phrase it holds only courtesy words and at most maxCommandContentWords others.
func (l *listener) standalone(norm, p string) bool {
	i := strings.Index(norm, " "+p+" ")
	if i < 0 {
		return false
	}
	rest := norm[:i] + " " + norm[i+len(p)+2:]
	content := 0
	for _, w := range strings.Fields(rest) {
		if !l.politeness[w] {
			content++
		}
	}
	return content <= maxCommandContentWords
}

// negative reports whether a reply to "are you sure?" declines it.
func (l *listener) negative(text string) bool {
	norm := normalizeWords(text)
	for _, p := range l.negatives {
		if containsNorm(norm, p) {
			return true
		}
	}
	return false
}

// affirmative reports whether a reply to "are you sure?" confirms it; a negative word wins
// ("no, I'm not sure").
func (l *listener) affirmative(text string) bool {
	if l.negative(text) {
		return false
	}
	norm := normalizeWords(text)
	for _, p := range l.affirmatives {
		if containsNorm(norm, p) {
			return true
		}
	}
	return false
}

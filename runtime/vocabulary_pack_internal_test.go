package runtime

import (
	"slices"
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

// TestVocabularyFromPack: the runtime's Vocabulary is built from the exam's language pack, so a
// language has one source of words; English's is the default vocabulary itself, and a custom
// vocabulary's command phrases reach the listener.
func TestVocabularyFromPack(t *testing.T) {
	if vocabularyFor(lang.English()) != defaultVocabulary || vocabularyFor(nil) != defaultVocabulary {
		t.Fatal("the shipped English pack's vocabulary is not the default vocabulary")
	}
	for _, tag := range lang.Builtin().Languages() {
		p, _ := lang.Lookup(tag)
		v := vocabularyFor(p)
		if len(v.Commands) != len(lang.CommandOrder) {
			t.Errorf("%s: %d command rules, want %d", tag, len(v.Commands), len(lang.CommandOrder))
		}
		for i, name := range lang.CommandOrder {
			if v.Commands[i].Command != Command(name) || len(v.Commands[i].Phrases) != len(normPhrases(p.Commands[name])) {
				t.Errorf("%s: rule %d is %s with %d phrases, want the pack's %s", tag, i, v.Commands[i].Command, len(v.Commands[i].Phrases), name)
			}
		}
		if tag != "en" && len(p.Backchannels) > 0 && !slices.Equal(v.Backchannels, p.Backchannels) {
			t.Errorf("%s: backchannels %v, want the pack's %v", tag, v.Backchannels, p.Backchannels)
		}
		if !slices.Equal(v.Affirmatives, p.Affirmatives) || !slices.Equal(v.Negatives, p.Negatives) {
			t.Errorf("%s: confirm/cancel words are not the pack's", tag)
		}
	}
	fr, _ := lang.Lookup("fr")
	if cmd, ok := listenerFor(fr).classify("Pouvez-vous répéter la question, s'il vous plaît ?"); !ok || cmd != CmdRepeat {
		t.Errorf("French repeat → %q, %v", cmd, ok)
	}
	custom := EnglishVocabulary()
	custom.Commands = append([]CommandPhrases{{Command: CmdPause, Phrases: []string{"time out"}}}, custom.Commands...)
	if cmd, ok := newListener(custom).classify("Time out, please."); !ok || cmd != CmdPause {
		t.Errorf("a custom vocabulary's command phrase → %q, %v", cmd, ok)
	}
}

package voicepath

import (
	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec/lang"
)

// languaged is a controller that knows the exam's language pack (runtime.Controller does).
type languaged interface{ Language() *lang.Pack }

// languageOf is the controller's language pack, or nil (English) for one that has none.
func languageOf(ctrl Controller) *lang.Pack {
	if l, ok := ctrl.(languaged); ok {
		return l.Language()
	}
	return nil
}

// vocabularied is a controller that knows the exam's vocabulary (runtime.Controller does).
type vocabularied interface{ Vocabulary() *runtime.Vocabulary }

// vocabularyOf is the controller's vocabulary (built from the exam's language pack), or
// English's for a controller that has none.
func vocabularyOf(ctrl Controller) *runtime.Vocabulary {
	if v, ok := ctrl.(vocabularied); ok && v.Vocabulary() != nil {
		return v.Vocabulary()
	}
	return englishVocabulary
}

// TrailingWords are a language pack's end-of-turn word classes (its trailing words and
// fillers) as the adaptive end of turn reads a pause's words; nil: English.
func TrailingWords(p *lang.Pack) audio.TrailingWords {
	if p == nil {
		p = lang.English()
	}
	return audio.NewTrailingWords(p.TurnEnd.Trailing, p.TurnEnd.Fillers)
}

// defaultVoice is the examiner's voice when the node's persona names none: the one configured
// (WithDefaultVoice: --voice, the config file), else the language pack's espeak-ng voice (a
// regional tag speaks with its base language's unless a pack names its own).
func (p *Path) defaultVoice() string {
	if p.cfg.voice != "" || p.lang == nil {
		return p.cfg.voice
	}
	return p.lang.Voice
}

package app

import (
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// adaptiveHangover is the VAD hangover with the adaptive end of turn.
const adaptiveHangover = 100 * time.Millisecond

// AdaptiveTurnTaking returns the voice options of a room's adaptive end of turn over ep: when
// the candidate pauses, the words so far are recognised; a complete answer ends the turn after
// the short delay (ep.CompleteEndpointingDelay, default 250 ms and never above the min delay),
// a trailing one ("um", "and", "because") waits for the max delay, anything else for the min
// delay. The pause's transcript is the final one when nothing more is said, so recognition is
// done by the endpoint. The trailing words are the language pack's (nil: English).
func AdaptiveTurnTaking(ep audio.EndpointConfig, p *lang.Pack) []audio.VoiceOption {
	return []audio.VoiceOption{audio.WithVoiceEndpointing(adaptiveEndpoint(ep)), audio.WithTurnClassifier(TrailingWords(p).ClassifyTurn)}
}

// TrailingWords are a language pack's end-of-turn word classes (its trailing words and
// fillers) as the voice path reads a pause's words; nil: English.
func TrailingWords(p *lang.Pack) audio.TrailingWords {
	if p == nil {
		p = lang.English()
	}
	return audio.NewTrailingWords(p.TurnEnd.Trailing, p.TurnEnd.Fillers)
}

// SpeechVoice is the examiner's voice: the one configured (--voice, the config file), else the
// language pack's espeak-ng voice (a regional tag speaks with its base language's unless a
// pack names its own).
func SpeechVoice(configured string, p *lang.Pack) string {
	if configured != "" || p == nil {
		return configured
	}
	return p.Voice
}

// adaptiveEndpoint is ep as the adaptive end of turn uses it (see AdaptiveTurnTaking).
func adaptiveEndpoint(ep audio.EndpointConfig) audio.EndpointConfig {
	if ep == (audio.EndpointConfig{}) {
		ep = audio.DefaultEndpointConfig()
	}
	if ep.CompleteEndpointingDelay > ep.MinEndpointingDelay {
		ep.CompleteEndpointingDelay = ep.MinEndpointingDelay
	}
	// Notice a pause sooner: its words are read before the turn may end, so a short hangover
	// only starts that reading earlier (a resumed sentence drops it).
	if ep.VAD.Hangover > adaptiveHangover {
		ep.VAD.Hangover = adaptiveHangover
	}
	if ep.CompleteEndpointingDelay == 0 {
		ep.CompleteEndpointingDelay = min(audio.DefaultCompleteEndpointingDelay, ep.MinEndpointingDelay)
	}
	return ep
}

// SpecTurnTaking applies an exam's policies.turnTaking to ep (nil: ep unchanged). Delays given
// on the command line win: minSet and maxSet say which were.
func SpecTurnTaking(ep audio.EndpointConfig, tt *spec.ResolvedTurnTaking, minSet, maxSet bool) audio.EndpointConfig {
	if tt == nil {
		return ep
	}
	sec := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	if !minSet {
		ep.MinEndpointingDelay = sec(tt.MinDelay)
	}
	if !maxSet {
		ep.MaxEndpointingDelay = sec(tt.MaxDelay)
	}
	ep.CompleteEndpointingDelay = sec(tt.CompleteDelay)
	if ep.MaxEndpointingDelay < ep.MinEndpointingDelay {
		ep.MaxEndpointingDelay = ep.MinEndpointingDelay
	}
	if ep.VAD.Hangover >= ep.MinEndpointingDelay && ep.MinEndpointingDelay > audio.FrameDuration {
		ep.VAD.Hangover = ep.MinEndpointingDelay - audio.FrameDuration
	}
	return ep
}

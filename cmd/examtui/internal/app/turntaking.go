package app

import (
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/spec"
)

// adaptiveHangover is the VAD hangover with the adaptive end of turn.
const adaptiveHangover = 100 * time.Millisecond

// AdaptiveTurnTaking returns the voice options of a room's adaptive end of turn over ep: when
// the candidate pauses, the words so far are recognised; a complete answer ends the turn after
// the short delay (ep.CompleteEndpointingDelay, default 250 ms and never above the min delay),
// a trailing one ("um", "and", "because") waits for the max delay, anything else for the min
// delay. The pause's transcript is the final one when nothing more is said, so recognition is
// done by the endpoint.
func AdaptiveTurnTaking(ep audio.EndpointConfig) []audio.VoiceOption {
	return []audio.VoiceOption{audio.WithVoiceEndpointing(adaptiveEndpoint(ep)), audio.WithTurnClassifier(audio.ClassifyTurn)}
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

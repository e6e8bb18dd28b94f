package voicepath

import (
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/spec"
)

// EndOfTurn is how the path decides the candidate's turn has ended.
type EndOfTurn int

const (
	// EndFixed ends a turn after MinEndpointingDelay of silence.
	EndFixed EndOfTurn = iota
	// EndAdaptive is the adaptive end of turn: at each pause the words so far are recognised;
	// a complete answer ends the turn after the short delay (CompleteEndpointingDelay), a
	// trailing one ("um", "and", "because") waits for the max delay, anything else for the
	// min delay; and the examiner starts on a complete answer during the wait
	// (Controller.Speculate), its reply kept only if the final turn is the same.
	EndAdaptive
)

func (e EndOfTurn) String() string {
	switch e {
	case EndFixed:
		return "fixed"
	case EndAdaptive:
		return "adaptive"
	}
	return "unknown"
}

// adaptiveHangover is the VAD hangover with the adaptive end of turn.
const adaptiveHangover = 100 * time.Millisecond

// endOfTurn is the end-of-turn decision of the adaptive end of turn: given the words
// recognised at a pause, whether the turn is complete (end it after the short delay),
// trailing (wait up to the max delay) or neither (the min delay); a complete answer recognised
// with high confidence that stops on no filler is sure (the shortest delay,
// SureEndpointingDelay). The words are the interim
// transcript too, when the path shows one (WithInterim).
func (p *Path) endOfTurn(partial audio.Transcript) audio.TurnEnd {
	if p.cfg.interim {
		if err := p.ctrl.Interim(partial.Text, 0); err != nil {
			p.log.Debug("voice: interim transcript", "err", err)
		}
	}
	return p.trailing.ClassifyTranscript(partial) // in the exam's language
}

// endOfTurnOptions are the audio pipeline's options for the configured end of turn.
func (p *Path) endOfTurnOptions() []audio.VoiceOption {
	switch p.cfg.endOfTurn {
	case EndAdaptive:
		return []audio.VoiceOption{audio.WithVoiceEndpointing(AdaptiveEndpoint(p.cfg.endpoint)),
			audio.WithTurnClassifier(p.endOfTurn), audio.WithSpeculation(p.speculate)}
	}
	return []audio.VoiceOption{audio.WithVoiceEndpointing(p.cfg.endpoint)}
}

// AdaptiveEndpoint is ep as the adaptive end of turn uses it: the complete-answer delay never
// above the min delay (default 250 ms), the sure-answer delay never above that (default
// 150 ms), and a short VAD hangover so a pause is read sooner.
func AdaptiveEndpoint(ep audio.EndpointConfig) audio.EndpointConfig {
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
	if ep.SureEndpointingDelay == 0 || ep.SureEndpointingDelay > ep.CompleteEndpointingDelay {
		ep.SureEndpointingDelay = min(audio.DefaultSureEndpointingDelay, ep.CompleteEndpointingDelay)
	}
	return ep
}

// WithRoomEndOfTurn is the end of turn of a room exam (`examtui run --room`, its harnesses and
// benchmarks): adaptive, over ep (zero: audio.DefaultEndpointConfig) tuned by the exam's
// policies.turnTaking (SpecTurnTaking; minSet and maxSet: the delays the command line gave).
func WithRoomEndOfTurn(ep audio.EndpointConfig, tt *spec.ResolvedTurnTaking, minSet, maxSet bool) Option {
	if ep == (audio.EndpointConfig{}) {
		ep = audio.DefaultEndpointConfig()
	}
	return WithEndOfTurn(EndAdaptive, SpecTurnTaking(ep, tt, minSet, maxSet))
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
	ep.SureEndpointingDelay = sec(tt.SureDelay)
	if ep.MaxEndpointingDelay < ep.MinEndpointingDelay {
		ep.MaxEndpointingDelay = ep.MinEndpointingDelay
	}
	if ep.VAD.Hangover >= ep.MinEndpointingDelay && ep.MinEndpointingDelay > audio.FrameDuration {
		ep.VAD.Hangover = ep.MinEndpointingDelay - audio.FrameDuration
	}
	return ep
}

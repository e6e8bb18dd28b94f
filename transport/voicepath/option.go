package voicepath

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

type config struct {
	source      runtime.InputSource
	voice       string
	speed       float64
	endOfTurn   EndOfTurn
	endpoint    audio.EndpointConfig
	bargeIn     bool
	interim     bool
	audioOpts   []audio.VoiceOption
	onEvent     func(audio.Event)
	log         *slog.Logger
	firstLine   func(context.Context) bool
	playout     func(context.Context) error
	speechFail  func(text string, err error)
	vocab       *runtime.Vocabulary
	backchannel time.Duration
	pauseAfter  time.Duration
	falseCut    time.Duration
	timings     func(Timing)
	lineEnd     func(LineEnd)
}

// Option configures New.
type Option func(*config) error

// WithSource is the input source the candidate's spoken turns carry (runtime.SourceMic,
// runtime.SourceRoom). Default: runtime.SourceMic.
func WithSource(s runtime.InputSource) Option {
	return func(c *config) error { c.source = s; return nil }
}

// WithDefaultVoice is the examiner's voice when the node's persona names none (an espeak-ng
// voice such as "en-gb", or an OpenAI voice such as "alloy").
func WithDefaultVoice(name string) Option {
	return func(c *config) error { c.voice = strings.TrimSpace(name); return nil }
}

// WithSpeed scales the examiner's speaking rate (1 normal; audio.MinSpeed..audio.MaxSpeed).
func WithSpeed(f float64) Option {
	return func(c *config) error {
		if math.IsNaN(f) || f < audio.MinSpeed || f > audio.MaxSpeed {
			return fmt.Errorf("%w: speed %v (want %v..%v)", ErrInvalidConfig, f, audio.MinSpeed, audio.MaxSpeed)
		}
		c.speed = f
		return nil
	}
}

// WithEndOfTurn sets how the candidate's turn ends (endofturn.go) over the endpointing ep
// (zero: audio.DefaultEndpointConfig).
func WithEndOfTurn(mode EndOfTurn, ep audio.EndpointConfig) Option {
	return func(c *config) error {
		if mode < EndFixed || mode > EndAdaptive {
			return fmt.Errorf("%w: end of turn %d", ErrInvalidConfig, mode)
		}
		c.endOfTurn = mode
		if ep != (audio.EndpointConfig{}) {
			c.endpoint = ep
		}
		return nil
	}
}

// WithBargeIn lets the candidate interrupt the examiner (bargein.go). Off by default: a local
// microphone next to a loudspeaker would hear the examiner; a room's client cancels its echo.
func WithBargeIn(on bool) Option {
	return func(c *config) error { c.bargeIn = on; return nil }
}

// WithInterim shows the words recognised at each pause as the interim transcript
// (Controller.Interim), with the turn detector or the adaptive end of turn.
func WithInterim(on bool) Option {
	return func(c *config) error { c.interim = on; return nil }
}

// WithAudioOptions passes further options to audio.NewVoice (a recorder, a barge-in
// threshold...); they apply after the path's own.
func WithAudioOptions(opts ...audio.VoiceOption) Option {
	return func(c *config) error { c.audioOpts = append(c.audioOpts, opts...); return nil }
}

// WithEvents receives every voice event (levels for a meter, speech start and end); it runs
// on the capture loop and must not block.
func WithEvents(fn func(audio.Event)) Option {
	return func(c *config) error { c.onEvent = fn; return nil }
}

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidConfig)
		}
		c.log = l
		return nil
	}
}

// WithFirstLineWait holds the first line (the opening) until wait returns: a room waits,
// bounded, until someone has subscribed to the examiner's track. wait reports whether someone
// can hear; the line is said either way.
func WithFirstLineWait(wait func(context.Context) bool) Option {
	return func(c *config) error { c.firstLine = wait; return nil }
}

// WithPlayoutWait is called after each line, before the next one and before the controller
// hears the speech is done: a sink that returns before its audio has played (a network track)
// waits for it there.
func WithPlayoutWait(wait func(context.Context) error) Option {
	return func(c *config) error { c.playout = wait; return nil }
}

// WithSpeechErrors receives a line that could not be said (besides the log): a room reports
// it to the examiners.
func WithSpeechErrors(fn func(text string, err error)) Option {
	return func(c *config) error { c.speechFail = fn; return nil }
}

// WithVocabulary sets the words of the exam's language the path reads (the backchannels a
// sound over the examiner's line may be and still not cut it). Default: the controller's
// (runtime.Controller.Vocabulary: built from the exam's language pack), else
// runtime.EnglishVocabulary.
func WithVocabulary(v *runtime.Vocabulary) Option {
	return func(c *config) error {
		if v == nil {
			return fmt.Errorf("%w: nil vocabulary", ErrInvalidConfig)
		}
		c.vocab = v
		return nil
	}
}

// WithBackchannelLength sets how much voiced audio a sound over the examiner's line may have
// and still be held until its words are known (default DefaultBackchannelLength): past it,
// the line is cut at once. It is never below the audio's barge-in minimum
// (audio.WithBargeInSpeech).
func WithBackchannelLength(d time.Duration) Option {
	return func(c *config) error {
		if d < audio.FrameDuration || d > 5*time.Second {
			return fmt.Errorf("%w: backchannel length %v", ErrInvalidConfig, d)
		}
		c.backchannel = d
		return nil
	}
}

// WithPauseOnVoice sets how much voiced audio over the examiner's line pauses it until the
// words decide (default DefaultPauseAfter), and how long a paused line waits for them before
// it plays on (default DefaultFalseCutTimeout). It needs a sink that can pause (audio.Pauser:
// a room's track, the local speaker's audio.Player); another plays on until the words or a
// backchannel's length cut it.
func WithPauseOnVoice(after, timeout time.Duration) Option {
	return func(c *config) error {
		if after < audio.FrameDuration || after > 5*time.Second || timeout < 100*time.Millisecond || timeout > 30*time.Second {
			return fmt.Errorf("%w: pause after %v, false-cut timeout %v", ErrInvalidConfig, after, timeout)
		}
		c.pauseAfter, c.falseCut = after, timeout
		return nil
	}
}

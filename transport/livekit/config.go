package livekit

import (
	"fmt"
	"log/slog"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit/internal/lkconfig"
)

// Config says where and as whom to join.
type Config struct {
	URL string // ws(s):// or http(s):// address of the LiveKit server

	// Token admits the participant. When empty, a token is minted from APIKey, APISecret, Room
	// and Identity for each join.
	Token     string
	APIKey    string
	APISecret string
	Room      string
	Identity  string
}

func (c Config) validate() error {
	if err := lkconfig.CheckServerURL(c.URL, ErrInvalidConfig); err != nil {
		return err
	}
	if c.Token == "" && (c.APIKey == "" || c.APISecret == "" || c.Room == "" || c.Identity == "") {
		return fmt.Errorf("%w: need a token, or an API key, secret, room and identity", ErrInvalidConfig)
	}
	return nil
}

func (c Config) tokenSource(role Role) func() (string, error) {
	if c.Token != "" {
		return func() (string, error) { return c.Token, nil }
	}
	return func() (string, error) { return NewToken(c.APIKey, c.APISecret, c.Room, c.Identity, role) }
}

// options holds what Option values configure.
type options struct {
	log          *slog.Logger
	replay       func(fromSeq int64) []runtime.Event
	onText       func(CandidateText)
	onCommand    func(ExaminerCommand)
	onReject     func(Rejection)
	onState      func(ConnState)
	audioBuffer  int
	speechRate   int
	connectOpts  []lksdk.ConnectOption
	resendWindow time.Duration
	minBackoff   time.Duration
	maxBackoff   time.Duration
	silent       bool
}

func defaultOptions() options {
	return options{
		log:          slog.New(slog.DiscardHandler),
		audioBuffer:  500, // 10 s of 20 ms frames
		speechRate:   InputSampleRate,
		resendWindow: 15 * time.Second,
		minBackoff:   250 * time.Millisecond,
		maxBackoff:   5 * time.Second,
	}
}

func (o options) validate() error {
	switch {
	case o.audioBuffer < 1:
		return fmt.Errorf("%w: audio buffer %d frames", ErrInvalidConfig, o.audioBuffer)
	case o.speechRate < 8000 || o.speechRate > 48000:
		return fmt.Errorf("%w: speech sample rate %d Hz (want 8000..48000)", ErrInvalidConfig, o.speechRate)
	case o.resendWindow < 0:
		return fmt.Errorf("%w: negative resend window", ErrInvalidConfig)
	}
	return lkconfig.CheckBackoff("rejoin", o.minBackoff, o.maxBackoff, ErrInvalidConfig)
}

// Option configures Join and Dial.
type Option func(*options)

// WithLogger sets the logger (default: discard). The SDK's own logging goes there too.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// WithReplay sets where past events come from when a participant joins or the bot reconnects
// (typically the session store). Without it the room keeps every event it published in memory.
func WithReplay(fn func(fromSeq int64) []runtime.Event) Option {
	return func(o *options) { o.replay = fn }
}

// WithCandidateText sets the handler of typed answers from the candidate. Handlers run one at a
// time on the room's own goroutine, in arrival order; they may block.
func WithCandidateText(fn func(CandidateText)) Option { return func(o *options) { o.onText = fn } }

// WithExaminerCommand sets the handler of examiners' admin instructions and controls. It runs
// on the same goroutine as the candidate-text handler.
func WithExaminerCommand(fn func(ExaminerCommand)) Option {
	return func(o *options) { o.onCommand = fn }
}

// WithRejections sets the handler of rejected inbound messages (a wrong role, an unknown
// sender, a malformed message). Without one the room reports each rejection to the examiners as
// an out-of-band system_error event (seq 0, not part of the journal).
func WithRejections(fn func(Rejection)) Option { return func(o *options) { o.onReject = fn } }

// WithStateChanges sets a function told of every connection state change.
func WithStateChanges(fn func(ConnState)) Option { return func(o *options) { o.onState = fn } }

// WithAudioBuffer sets how many decoded frames may wait for the consumer before new ones are
// dropped.
func WithAudioBuffer(frames int) Option { return func(o *options) { o.audioBuffer = frames } }

// WithSpeechSampleRate sets the rate of the PCM written to the participant's voice (default
// 16 kHz).
func WithSpeechSampleRate(hz int) Option { return func(o *options) { o.speechRate = hz } }

// WithConnectOptions passes options to the SDK's join (interceptors, timeouts...).
func WithConnectOptions(opts ...lksdk.ConnectOption) Option {
	return func(o *options) { o.connectOpts = append(o.connectOpts, opts...) }
}

// WithResendWindow sets how far back events are sent again after the SDK resumed a connection:
// a packet handed to a transport that was already dead is lost without an error, so everything
// sent shortly before the interruption goes again (receivers drop what they already have).
func WithResendWindow(d time.Duration) Option { return func(o *options) { o.resendWindow = d } }

// WithRejoinBackoff sets the delays between rejoin attempts.
func WithRejoinBackoff(minDelay, maxDelay time.Duration) Option {
	return func(o *options) { o.minBackoff, o.maxBackoff = minDelay, maxDelay }
}

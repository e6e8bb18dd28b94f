package agent

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/examtui/examtui/transport/livekit/internal/lkconfig"
)

type options struct {
	log            *slog.Logger
	maxJobs        int
	targetLoad     float32
	load           func() float32
	onState        func(State)
	pingInterval   time.Duration
	statusInterval time.Duration
	deadAfter      time.Duration
	dialTimeout    time.Duration
	writeTimeout   time.Duration
	offerTimeout   time.Duration
	pendingTimeout time.Duration
	minBackoff     time.Duration
	maxBackoff     time.Duration
}

func defaultOptions() options {
	return options{
		log:            slog.New(slog.DiscardHandler),
		maxJobs:        10,
		targetLoad:     0.7, // livekit-server's agents.target_load default
		pingInterval:   5 * time.Second,
		statusInterval: time.Second,
		deadAfter:      20 * time.Second, // the server pings every 10 s; two missed is a dead link
		dialTimeout:    10 * time.Second,
		writeTimeout:   5 * time.Second,
		offerTimeout:   5 * time.Second,  // well inside the server's 10 s assignment timeout
		pendingTimeout: 15 * time.Second, // past the server's assignment timeout
		minBackoff:     250 * time.Millisecond,
		maxBackoff:     5 * time.Second,
	}
}

func (o options) validate() error {
	switch {
	case o.maxJobs < 1:
		return fmt.Errorf("%w: max jobs must be at least 1, got %d", ErrInvalidConfig, o.maxJobs)
	case o.targetLoad <= 0 || o.targetLoad > 1:
		return fmt.Errorf("%w: target load must be in (0, 1], got %g", ErrInvalidConfig, o.targetLoad)
	case o.pingInterval < time.Second:
		return fmt.Errorf("%w: ping interval must be at least 1s, got %s", ErrInvalidConfig, o.pingInterval)
	case o.statusInterval <= 0 || o.deadAfter <= o.pingInterval:
		return fmt.Errorf("%w: status interval must be positive and the dead timeout longer than the ping interval", ErrInvalidConfig)
	}
	return lkconfig.CheckBackoff("reconnect", o.minBackoff, o.maxBackoff, ErrInvalidConfig)
}

// Option configures New.
type Option func(*options)

// WithLogger sets the worker's logger.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// WithMaxJobs bounds the jobs the worker runs at once (default 10); at the bound it tells the
// server it is full and declines offers.
func WithMaxJobs(n int) Option { return func(o *options) { o.maxJobs = n } }

// WithLoad adds a load measure (0..1, e.g. CPU); the worker reports the larger of it and its
// share of max jobs scaled to the target load.
func WithLoad(fn func() float32) Option { return func(o *options) { o.load = fn } }

// WithStateChanges calls fn on each connection state change; it must not block.
func WithStateChanges(fn func(State)) Option { return func(o *options) { o.onState = fn } }

// WithPingInterval sets how often the worker pings the server (default 5 s); silence from the
// server for longer than deadAfter ends the connection and reconnects.
func WithPingInterval(every, deadAfter time.Duration) Option {
	return func(o *options) { o.pingInterval, o.deadAfter = every, deadAfter }
}

// WithReconnectBackoff sets the delays between reconnection attempts (default 250ms..5s).
func WithReconnectBackoff(minDelay, maxDelay time.Duration) Option {
	return func(o *options) { o.minBackoff, o.maxBackoff = minDelay, maxDelay }
}

// WithTargetLoad matches the server's agents.target_load (default 0.7): the load a worker
// reports when its jobs fill it. The server sends no job to a node whose workers all report
// at least that load.
func WithTargetLoad(x float32) Option { return func(o *options) { o.targetLoad = x } }

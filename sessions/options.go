package sessions

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Synchronous is SQLite's durability level for commits.
type Synchronous int

// Durability levels. SyncFull survives power loss (every group commit is fsynced); SyncNormal
// survives a process crash, which is what the write-ahead rule needs, and is faster on slow disks.
const (
	SyncFull Synchronous = iota
	SyncNormal
)

func (s Synchronous) String() string {
	switch s {
	case SyncFull:
		return "FULL"
	case SyncNormal:
		return "NORMAL"
	}
	return fmt.Sprintf("Synchronous(%d)", int(s))
}

// Option configures a Store.
type Option func(*storeConfig) error

type storeConfig struct {
	logger      *slog.Logger
	busyTimeout time.Duration
	writeWait   time.Duration // SQLite: a write's whole wait for the write lock (writeturn.go)
	sync        Synchronous
	recover     bool
	localUser   string // SQLite: the identity instead of the OS account (WithLocalIdentity)
	now         func() time.Time
}

// newStoreConfig is the defaults with opts applied, for either engine.
func newStoreConfig(opts []Option) (storeConfig, error) {
	cfg := storeConfig{
		logger:      slog.New(slog.DiscardHandler),
		busyTimeout: 5 * time.Second,
		writeWait:   DefaultWriteWait,
		sync:        SyncFull,
		recover:     true,
		now:         time.Now,
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return storeConfig{}, err
		}
	}
	return cfg, nil
}

// WithLogger sets the store's logger (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *storeConfig) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		c.logger = l
		return nil
	}
}

// WithBusyTimeout sets how long a statement waits for another connection's lock.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *storeConfig) error {
		if d < 0 {
			return fmt.Errorf("%w: negative busy timeout %v", ErrInvalidOption, d)
		}
		c.busyTimeout = d
		return nil
	}
}

// WithWriteWait sets how long, in all, a write on a SQLite store waits its turn for the write
// lock (default DefaultWriteWait): past one busy timeout it is tried again until then.
func WithWriteWait(d time.Duration) Option {
	return func(c *storeConfig) error {
		if d < 0 {
			return fmt.Errorf("%w: negative write wait %v", ErrInvalidOption, d)
		}
		c.writeWait = d
		return nil
	}
}

// WithSynchronous sets the commit durability level (default SyncFull).
func WithSynchronous(s Synchronous) Option {
	return func(c *storeConfig) error {
		if s != SyncFull && s != SyncNormal {
			return fmt.Errorf("%w: synchronous %v", ErrInvalidOption, s)
		}
		c.sync = s
		return nil
	}
}

// WithRecovery turns the marking of dead owners' sessions as interrupted on Open on or off
// (default on). Tests that inspect a store as a crashed process left it turn it off.
func WithRecovery(on bool) Option {
	return func(c *storeConfig) error {
		c.recover = on
		return nil
	}
}

// WithNow sets the clock used for session start times when Meta leaves them zero.
func WithNow(now func() time.Time) Option {
	return func(c *storeConfig) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		c.now = now
		return nil
	}
}

// WithLocalIdentity names who uses a SQLite store instead of the operating-system account:
// for tests that play several markers on one machine, and for a wrapper that signs people in
// itself. PostgreSQL refuses it: there the identity is the role that connected, never a claim.
func WithLocalIdentity(name string) Option {
	return func(c *storeConfig) error {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("%w: empty local identity", ErrInvalidOption)
		}
		c.localUser = strings.TrimSpace(name)
		return nil
	}
}

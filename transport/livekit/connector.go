package livekit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// connector keeps one participant in a room for as long as its context lives. The SDK recovers
// from most interruptions itself (ICE restart, resume, or a full rejoin of the same session);
// when it gives up, or the server removes the participant, the connector joins again with a
// fresh SDK room, with backoff, until it succeeds or is stopped.
type connector struct {
	url   string
	token func() (string, error)
	log   *slog.Logger
	opts  []lksdk.ConnectOption
	// callbacks builds the SDK callbacks of one connection; gen lets them ignore events from a
	// connection that has since been replaced.
	callbacks func(gen uint64) *lksdk.RoomCallback
	// setup runs after each successful join (publishing tracks, re-reading participants).
	setup func(ctx context.Context, lk *lksdk.Room, gen uint64) error
	// onState, when set, is told of every state change.
	onState    func(ConnState)
	minBackoff time.Duration
	maxBackoff time.Duration

	mu        sync.Mutex
	lk        *lksdk.Room
	gen       uint64
	state     ConnState
	connected chan struct{} // closed while connected
	changed   chan struct{} // closed and replaced at every change of state
	done      chan struct{} // closed by close
	lost      chan uint64   // generations the SDK gave up on
}

func (c *connector) init() {
	c.connected = make(chan struct{})
	c.changed = make(chan struct{})
	c.done = make(chan struct{})
	c.lost = make(chan uint64, 4)
	c.state = StateConnecting
	if c.minBackoff <= 0 {
		c.minBackoff = 250 * time.Millisecond
	}
	if c.maxBackoff < c.minBackoff {
		c.maxBackoff = 5 * time.Second
	}
}

// open prepares the connector and makes the first join; when that fails the connector is
// closed. run keeps it joined afterwards.
func (c *connector) open(ctx context.Context) error {
	c.init()
	if err := c.join(ctx); err != nil {
		c.close()
		return err
	}
	return nil
}

// join makes one connection attempt.
func (c *connector) join(ctx context.Context) error {
	tok, err := c.token()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.mu.Unlock()

	cb := c.callbacks(gen)
	userDisconnected := cb.OnDisconnected
	cb.OnDisconnected = func() {
		if userDisconnected != nil {
			userDisconnected()
		}
		c.markLost(gen)
	}
	userReconnecting, userReconnected := cb.OnReconnecting, cb.OnReconnected
	cb.OnReconnecting = func() {
		c.setState(gen, StateReconnecting)
		if userReconnecting != nil {
			userReconnecting()
		}
	}
	cb.OnReconnected = func() {
		c.setState(gen, StateConnected)
		if userReconnected != nil {
			userReconnected()
		}
	}

	lk := lksdk.NewRoom(cb)
	opts := append([]lksdk.ConnectOption{lksdk.WithLogger(sdkLogger(c.log))}, c.opts...)
	if err := lk.JoinWithContextAndToken(ctx, c.url, tok, opts...); err != nil {
		lk.Disconnect()
		if ns := noServer(c.url, err); ns != nil {
			return ns
		}
		return fmt.Errorf("join %s: %w", c.url, err)
	}
	c.mu.Lock()
	stale := c.gen != gen || c.state == StateClosed
	if !stale {
		c.lk = lk
	}
	c.mu.Unlock()
	if stale {
		lk.Disconnect()
		return ErrClosed
	}
	if c.setup != nil {
		if err := c.setup(ctx, lk, gen); err != nil {
			lk.Disconnect()
			return err
		}
	}
	c.setState(gen, StateConnected)
	return nil
}

func (c *connector) markLost(gen uint64) {
	c.mu.Lock()
	current := gen == c.gen && c.state != StateClosed
	c.mu.Unlock()
	if !current {
		return
	}
	c.setState(gen, StateReconnecting)
	select {
	case c.lost <- gen:
	default:
	}
}

func (c *connector) setState(gen uint64, s ConnState) {
	c.mu.Lock()
	if gen != c.gen || c.state == StateClosed || c.state == s {
		c.mu.Unlock()
		return
	}
	prev := c.state
	c.state = s
	close(c.changed)
	c.changed = make(chan struct{})
	if s == StateConnected {
		close(c.connected)
	} else if prev == StateConnected {
		c.connected = make(chan struct{})
	}
	onState := c.onState
	c.mu.Unlock()
	c.log.Info("livekit connection", "state", s.String(), "previous", prev.String())
	if onState != nil {
		onState(s)
	}
}

// run rejoins whenever the SDK gives up on a connection, until ctx ends.
func (c *connector) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case gen := <-c.lost:
			c.mu.Lock()
			current := gen == c.gen
			old := c.lk
			c.mu.Unlock()
			if !current {
				continue
			}
			if old != nil {
				old.Disconnect()
			}
			c.rejoin(ctx)
		}
	}
}

func (c *connector) rejoin(ctx context.Context) {
	delay := c.minBackoff
	for attempt := 1; ; attempt++ {
		err := c.join(ctx)
		if err == nil {
			c.log.Info("livekit rejoined", "attempt", attempt)
			return
		}
		c.log.Warn("livekit rejoin failed", "attempt", attempt, "err", err, "retryIn", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, c.maxBackoff)
	}
}

// room returns the current SDK room, nil before the first join.
func (c *connector) room() *lksdk.Room {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lk
}

func (c *connector) currentGen() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// State reports the connection state.
func (c *connector) State() ConnState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// stateChange returns the state and a channel closed at its next change.
func (c *connector) stateChange() (ConnState, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state, c.changed
}

// waitConnected blocks until the participant is connected, and returns the SDK room.
func (c *connector) waitConnected(ctx context.Context) (*lksdk.Room, error) {
	for {
		c.mu.Lock()
		state, ch, lk := c.state, c.connected, c.lk
		c.mu.Unlock()
		switch state {
		case StateClosed:
			return nil, ErrClosed
		case StateConnected:
			return lk, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", ErrNotConnected, ctx.Err())
		case <-c.done:
			return nil, ErrClosed
		case <-ch:
		}
	}
}

// close leaves the room for good.
func (c *connector) close() {
	c.mu.Lock()
	if c.state == StateClosed {
		c.mu.Unlock()
		return
	}
	c.state = StateClosed
	close(c.changed)
	c.changed = make(chan struct{})
	close(c.done)
	lk := c.lk
	onState := c.onState
	c.mu.Unlock()
	if lk != nil {
		lk.Disconnect()
	}
	if onState != nil {
		onState(StateClosed)
	}
}

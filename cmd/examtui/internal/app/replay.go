package app

import (
	"context"
	"fmt"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// Replay is a stored session playing into a read-only console: the player feeds Events, which
// the console reads, and the console's replay keys steer the player.
type Replay struct {
	Session *sessions.Session
	Player  *sessions.Player
	Model   *tui.Model
	// Events carries the played events; it closes when the replay is over or ctx ends.
	Events <-chan runtime.Event
	// Played reports how the player stopped.
	Played <-chan error
}

// OpenReplay starts replaying session id from seq from (events before it are shown at once,
// so the panes are as they were at that point). Cancelling ctx stops the player.
func OpenReplay(ctx context.Context, st *sessions.Store, id string, from int64, popts []sessions.PlayerOption, topts ...tui.Option) (*Replay, error) {
	sess, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if from > sess.EventCount+1 {
		return nil, fmt.Errorf("--from %d: session %s has %d events", from, id, sess.EventCount)
	}
	p, err := sessions.NewPlayer(st.Events(ctx, id, from), popts...)
	if err != nil {
		return nil, err
	}
	info := tui.Info{Title: sess.Title, Examiner: sess.Examiner, Input: sess.Input, SessionID: id, ReadOnly: true}
	if info.Input == runtime.SourceUnknown {
		info.Input = runtime.SourceTyped
	}
	opts := append([]tui.Option{tui.WithReplay(p), tui.WithReplayTotal(sess.EventCount)}, topts...)
	m, err := tui.New(info, nil, opts...)
	if err != nil {
		return nil, err
	}
	if from > 1 {
		if err := applyBefore(ctx, st, id, from, m); err != nil {
			return nil, err
		}
	}
	events, played := playInto(ctx, p)
	return &Replay{Session: sess, Player: p, Model: m, Events: events, Played: played}, nil
}

// applyBefore shows the events before seq from at once.
func applyBefore(ctx context.Context, st *sessions.Store, id string, from int64, m *tui.Model) error {
	batch := make([]runtime.Event, 0, 256)
	for ev, err := range st.Events(ctx, id, 1) {
		if err != nil {
			return err
		}
		if ev.Seq >= from {
			break
		}
		batch = append(batch, ev)
		if len(batch) == cap(batch) {
			m.Apply(batch...)
			batch = batch[:0]
		}
	}
	m.Apply(batch...)
	return nil
}

// playInto runs the player into a channel the console reads.
func playInto(ctx context.Context, p *sessions.Player) (<-chan runtime.Event, <-chan error) {
	events := make(chan runtime.Event)
	played := make(chan error, 1)
	go func() {
		defer close(events)
		played <- p.Run(ctx, func(ev runtime.Event) error {
			select {
			case events <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return events, played
}

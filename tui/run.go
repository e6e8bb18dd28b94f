package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// maxBatch bounds how many queued events one message carries, so a flood of replay events
// still yields frames now and then.
const maxBatch = 256

// Run starts the program and one bridge goroutine that forwards events with Program.Send. It
// returns when the user quits or ctx is done (then with nil: cancelling is how a caller asks
// the console to close). The bridge stops before Run returns.
func Run(ctx context.Context, m *Model, events <-chan runtime.Event, opts ...tea.ProgramOption) error {
	if m == nil {
		return fmt.Errorf("%w: nil model", ErrInvalidOption)
	}
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bridge(done, events, m.opts.audio, p.Send)
	}()

	_, err := p.Run()
	close(done)
	wg.Wait()
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}

// Bridge forwards events (and the console's audio levels) to a program the caller built
// itself (a test harness, a host that embeds the console), exactly as Run does for its own:
// batched EventsMsg, then StreamEndedMsg when events closes. It returns when both feeds end or
// done closes; send must return once done is closed.
func (m *Model) Bridge(done <-chan struct{}, events <-chan runtime.Event, send func(tea.Msg)) {
	bridge(done, events, m.opts.audio, send)
}

// bridge forwards events (and audio levels, when the console has a feed) until done closes.
// It drains what is already queued into one EventsMsg. send must return once done is closed
// (Program.Send does, since the program's context ends when Run returns).
func bridge(done <-chan struct{}, events <-chan runtime.Event, audio <-chan AudioLevelMsg, send func(tea.Msg)) {
	for events != nil || audio != nil {
		var batch EventsMsg
		select {
		case <-done:
			return
		case lvl, ok := <-audio:
			if !ok {
				audio = nil
				continue
			}
			send(lvl)
			continue
		case ev, ok := <-events:
			if !ok {
				events = nil
				send(StreamEndedMsg{})
				continue
			}
			batch = append(batch, ev)
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-events:
				if !ok {
					send(batch)
					batch = nil
					events = nil
					send(StreamEndedMsg{})
					break drain
				}
				batch = append(batch, ev)
			default:
				break drain
			}
		}
		if len(batch) > 0 {
			send(batch)
		}
	}
}

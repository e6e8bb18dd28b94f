package livekit

import (
	"context"
	"time"
)

// ListenerWait bounds how long the bot's first line waits for someone to subscribe to its voice.
// Under load a candidate's subscription can complete seconds after they joined; a line said
// before it is lost to them (they heard nothing until the re-prompt ~20 s later). A client that
// never subscribes (typed answers only) delays the first line by this much.
const ListenerWait = 5 * time.Second

// markHeard records that a participant subscribed to the voice's track. Only the vouched
// candidate and examiners may (allowListeners), so this is one of them, the candidate in an
// exam room where the exam starts when the candidate arrives.
func (v *Voice) markHeard() {
	v.heardOnce.Do(func() { close(v.heard) })
}

// WaitListener blocks until someone has subscribed to the voice, d has passed or ctx ended, and
// reports whether someone has. Once true it returns at once.
func (v *Voice) WaitListener(ctx context.Context, d time.Duration) bool {
	select {
	case <-v.heard:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-v.heard:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

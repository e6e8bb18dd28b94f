package app

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/tui"
)

// BackendTimeout bounds one command sent from the console.
const BackendTimeout = 10 * time.Second

// RemoteBackend sends the console's controls and instructions to the bot. An examiner cannot
// answer for the candidate, so SubmitText is refused.
func RemoteBackend(ctx context.Context, c livekit.CommandSender) tui.Backend {
	return tui.BackendFuncs{
		ControlFunc: func(action runtime.ControlAction) error {
			cctx, cancel := context.WithTimeout(ctx, BackendTimeout)
			defer cancel()
			return c.SendControl(cctx, action)
		},
		AdminFunc: func(mode runtime.AdminMode, text string) error {
			cctx, cancel := context.WithTimeout(ctx, BackendTimeout)
			defer cancel()
			return c.SendAdmin(cctx, mode, text)
		},
	}
}

// GapWait is how long events after a missing seq are held back for it: after a reconnection the
// bot re-sends what was lost, and the console's panes assume seq order.
const GapWait = 3 * time.Second

// OrderEvents delivers events in seq order: an event whose predecessors have not arrived waits
// for them for at most wait, then everything held goes out in order, after a security warning
// naming the seqs that never came (the journal has no holes, so a gap means lost or withheld
// events). Out-of-band reports (seq 0) pass at once. The returned channel closes when ctx ends.
func OrderEvents(ctx context.Context, in <-chan runtime.Event, wait time.Duration) <-chan runtime.Event {
	out := make(chan runtime.Event, 256)
	go func() {
		defer close(out)
		next := int64(1)
		held := map[int64]runtime.Event{}
		var timer *time.Timer
		var timeout <-chan time.Time
		send := func(ev runtime.Event) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		release := func(force bool) bool {
			for len(held) > 0 {
				ev, ok := held[next]
				if !ok {
					if !force {
						return true
					}
					lowest := int64(math.MaxInt64)
					for s := range held {
						lowest = min(lowest, s)
					}
					if !send(gapWarning(held[lowest].SessionID, next, lowest-1)) {
						return false
					}
					next = lowest
					continue
				}
				delete(held, next)
				next++
				if !send(ev) {
					return false
				}
			}
			return true
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-timeout:
				timeout = nil
				if !release(true) {
					return
				}
			case ev := <-in:
				switch {
				case ev.Seq == 0:
					if !send(ev) {
						return
					}
					continue
				case ev.Seq < next:
					continue // already delivered (the client drops exact duplicates too)
				}
				held[ev.Seq] = ev
				if !release(false) {
					return
				}
			}
			if len(held) > 0 && timeout == nil {
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				timeout = timer.C
			}
		}
	}()
	return out
}

// gapWarning is the security warning for journal seqs from..to that never arrived.
func gapWarning(session string, from, to int64) runtime.Event {
	msg := fmt.Sprintf("event #%d never arrived from the exam bot; the console may miss part of the exam", from)
	if to > from {
		msg = fmt.Sprintf("events #%d to #%d never arrived from the exam bot; the console may miss part of the exam", from, to)
	}
	ev, err := runtime.NewEvent(session, 0, time.Now(), &runtime.SystemErrorPayload{Code: runtime.CodeEventGap, Message: msg})
	if err != nil {
		panic(err) // a fixed payload type always encodes
	}
	return ev
}

// NoteSessions passes in's events on unchanged and calls note, off the event path, once for
// each session id the events name (watch records each exam it is shown in the access log).
// The returned channel closes when in closes or ctx ends.
func NoteSessions(ctx context.Context, in <-chan runtime.Event, note func(id string)) <-chan runtime.Event {
	out := make(chan runtime.Event, 256)
	go func() {
		defer close(out)
		seen := map[string]bool{}
		for {
			var ev runtime.Event
			var ok bool
			select {
			case <-ctx.Done():
				return
			case ev, ok = <-in:
				if !ok {
					return
				}
			}
			if ev.SessionID != "" && !seen[ev.SessionID] {
				seen[ev.SessionID] = true
				note(ev.SessionID)
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

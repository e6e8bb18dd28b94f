package monitor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
)

// Waiting is a LiveKit room that an exam was dispatched to (an examtui agent dispatch) with no
// exam bot in it yet: no worker took the job (every one full or draining, or none running), or
// one took it and its bot has not joined. It is not an exam (there is no session yet), so the
// board keeps it apart from its rows and never counts it as one.
type Waiting struct {
	Room       string
	Candidate  string    // the candidate's identity in the room, if one is there
	DispatchID string    // the dispatch that waits (the oldest, when there are several)
	Since      time.Time // when it was dispatched (the room's creation when unknown)
	// Rejected is the worker's reason when a worker took the dispatch and refused it (an
	// unknown spec): the exam will not start, and the not-started alert is raised at once.
	Rejected string
	// Alert is the not-started alert once the room has waited Thresholds.NotStarted; nil before.
	Alert *Alert
}

// Age is how long the room has waited at now.
func (w *Waiting) Age(now time.Time) time.Duration { return max(now.Sub(w.Since), 0) }

// SetWaiting replaces the rooms waiting for their exam with one scan's list: a room missing
// from it has started its exam (its bot came) or lost its dispatch or is gone. A room still
// waiting on the same dispatch keeps its alert.
func (b *Board) SetWaiting(list []Waiting) {
	next := make(map[string]*Waiting, len(list))
	for _, w := range list {
		w := w
		w.Room, w.Candidate, w.DispatchID = textsafe.Line(w.Room), textsafe.Line(w.Candidate), textsafe.Line(w.DispatchID)
		w.Rejected = textsafe.Line(w.Rejected)
		w.Alert = nil
		if old := b.waiting[w.Room]; old != nil && old.DispatchID == w.DispatchID {
			w.Alert = old.Alert
			if w.Alert != nil {
				w.Alert.Candidate = w.Candidate
			}
		}
		next[w.Room] = &w
	}
	b.waiting = next
}

// Waiting returns the rooms whose dispatched exam has not started, longest waiting first.
func (b *Board) Waiting() []*Waiting {
	out := make([]*Waiting, 0, len(b.waiting))
	for _, w := range b.waiting {
		out = append(out, w)
	}
	slices.SortFunc(out, func(x, y *Waiting) int {
		if c := x.Since.Compare(y.Since); c != 0 {
			return c
		}
		return strings.Compare(x.Room, y.Room)
	})
	return out
}

// tickWaiting raises the not-started alert on each room that has waited the threshold, and
// returns those newly raised; the detail of a standing one follows its age.
func (b *Board) tickWaiting(now time.Time) []Alert {
	var out []Alert
	for _, w := range b.Waiting() {
		age := w.Age(now)
		if age < b.th.NotStarted && w.Rejected == "" {
			continue
		}
		detail := fmt.Sprintf("dispatched %s ago and no exam bot has joined room %s", roundDur(age), w.Room)
		if w.Rejected != "" {
			detail = fmt.Sprintf("the worker rejected the exam dispatched to room %s: %s", w.Room, w.Rejected)
		}
		if w.Alert != nil {
			w.Alert.Detail = detail
			continue
		}
		w.Alert = &Alert{Kind: AlertNotStarted, Room: w.Room, Candidate: w.Candidate, At: now, Detail: detail}
		out = append(out, *w.Alert)
	}
	return out
}

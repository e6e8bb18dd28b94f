package monitor

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// Source is what the follower reads: the session store (*sessions.Store).
type Source interface {
	Live(ctx context.Context, since time.Time) ([]*sessions.Session, error)
	Events(ctx context.Context, id string, fromSeq int64) iter.Seq2[runtime.Event, error]
	CheckOwners(ctx context.Context) error
}

// Update is what one poll of the store found: the sessions it lists (metadata and aggregates)
// and the events that are new since the previous poll, per session in seq order.
type Update struct {
	Sessions []*sessions.Session
	Events   []runtime.Event
	Err      error // a failed poll; the next one retries
	// First marks the first update, which carries the history: alerts it raises are old news.
	First bool
	// AwaitingMarks is how many finished exams wait to be marked, when this poll read it
	// (nil: unchanged or not read).
	AwaitingMarks *int
	// FailedPassbacks is how many scores the LMS gradebook did not take (docs/lms.md), when
	// this poll read it (nil: unchanged or not read).
	FailedPassbacks *int
}

// MarksCounter is what a Source that holds marks offers: the count of finished exams whose
// marking is not locked (sessions.Store.AwaitingMarks).
type MarksCounter interface {
	AwaitingMarks(ctx context.Context) (int, error)
}

// PassbackCounter is what a Source that holds grade passback offers: the count of scores
// whose last post to a gradebook failed (sessions.Store.FailedPassbacks).
type PassbackCounter interface {
	FailedPassbacks(ctx context.Context) (int, error)
}

// FollowOptions tune Follow; zero fields take the defaults.
type FollowOptions struct {
	Interval    time.Duration // between polls (default 500 ms: new sessions show within a second)
	OwnersEvery time.Duration // between checks for exams whose process died (default 5 s)
	Since       time.Time     // the finished section starts here (default: local midnight)
	Logger      *slog.Logger
}

// StartOfDay is local midnight of t's day.
func StartOfDay(t time.Time) time.Time {
	y, m, d := t.Local().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.Local)
}

// Follow polls src until ctx ends and sends each poll's result on out (nothing when nothing
// changed). It reads only sessions whose event count grew since the last poll, and only their
// new events. It closes out when it returns.
func Follow(ctx context.Context, src Source, o FollowOptions, out chan<- Update) {
	defer close(out)
	if o.Interval <= 0 {
		o.Interval = 500 * time.Millisecond
	}
	if o.OwnersEvery <= 0 {
		o.OwnersEvery = 5 * time.Second
	}
	if o.Since.IsZero() {
		o.Since = StartOfDay(time.Now())
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	f := &follower{src: src, since: o.Since, seen: map[string]int64{}, meta: map[string]metaKey{}}
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	lastOwners := time.Now()
	first := true
	countMarks := true
	for {
		u := f.poll(ctx)
		u.First = first
		// Marks are set and locked by other processes: the count is read at the first poll,
		// when an exam ends, and with the owners check.
		for _, s := range u.Sessions {
			countMarks = countMarks || !s.EndedAt.IsZero()
		}
		if countMarks {
			countMarks = false
			if mc, ok := src.(MarksCounter); ok {
				u.AwaitingMarks = changedCount(ctx, o.Logger, "count exams awaiting marks", mc.AwaitingMarks, &f.marks)
			}
			if pc, ok := src.(PassbackCounter); ok {
				u.FailedPassbacks = changedCount(ctx, o.Logger, "count failed grade passbacks", pc.FailedPassbacks, &f.passbacks)
			}
		}
		if u.Err != nil && ctx.Err() == nil {
			o.Logger.Warn("monitor: poll the session store", "err", u.Err)
		}
		if first || len(u.Sessions) > 0 || len(u.Events) > 0 || u.Err != nil || u.AwaitingMarks != nil || u.FailedPassbacks != nil {
			select {
			case out <- u:
			case <-ctx.Done():
				return
			}
		}
		first = false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(lastOwners) >= o.OwnersEvery {
			lastOwners = time.Now()
			countMarks = true
			if err := src.CheckOwners(ctx); err != nil && ctx.Err() == nil {
				o.Logger.Warn("monitor: check exam owners", "err", err)
			}
		}
	}
}

// metaKey is what of a session's row, when it changes, is worth resending.
type metaKey struct {
	events      int64
	ended       bool
	interrupted bool
}

type follower struct {
	src       Source
	marks     *int // the last count of exams awaiting marks sent
	passbacks *int // the last count of failed grade passbacks sent
	since     time.Time
	seen      map[string]int64 // session → highest seq read
	meta      map[string]metaKey
}

func (f *follower) poll(ctx context.Context) Update {
	var u Update
	list, err := f.src.Live(ctx, f.since)
	if err != nil {
		u.Err = err
		return u
	}
	for _, s := range list {
		k := metaKey{events: s.EventCount, ended: !s.EndedAt.IsZero(), interrupted: s.Interrupted}
		if old, ok := f.meta[s.ID]; !ok || old != k {
			f.meta[s.ID] = k
			u.Sessions = append(u.Sessions, s)
		}
		if s.EventCount <= f.seen[s.ID] {
			continue
		}
		for ev, err := range f.src.Events(ctx, s.ID, f.seen[s.ID]+1) {
			if err != nil {
				u.Err = err
				break
			}
			u.Events = append(u.Events, ev)
			f.seen[s.ID] = ev.Seq
		}
	}
	return u
}

// changedCount reads a count and returns it when it differs from the last one sent (*last),
// nil when it does not or cannot be read.
func changedCount(ctx context.Context, log *slog.Logger, what string, read func(context.Context) (int, error), last **int) *int {
	n, err := read(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("monitor: "+what, "err", err)
		}
		return nil
	}
	if *last != nil && **last == n {
		return nil
	}
	*last = &n
	return &n
}

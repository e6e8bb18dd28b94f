package sessions

import (
	"context"
	"math/rand/v2"
	"time"
)

// SQLite has one write lock per database file. A writer that finds it taken sleeps and polls
// (the busy timeout), and the poll is not a queue: with many processes on one data directory
// (200 exams at once), a writer can lose the race for longer than the busy timeout and get
// SQLITE_BUSY, which used to make an exam fail at its start (creating its session, taking its
// journal, migrating) and leave a session behind without an owner. A write that found the lock
// taken has done nothing yet, so it is tried again until its turn comes, up to a total wait:
// exams on a crowded store start late rather than not at all.

// DefaultWriteWait is how long a write waits in total for SQLite's write lock before it fails.
const DefaultWriteWait = 2 * time.Minute

// writeTurn runs try (a BEGIN IMMEDIATE or a single autocommit statement) until it does not
// fail with SQLITE_BUSY, ctx ends, or wait has passed since the first try. Between tries it
// sleeps a jittered, growing pause, so the waiting processes spread out.
func writeTurn[T any](ctx context.Context, wait time.Duration, try func() (T, error)) (T, error) {
	deadline := time.Now().Add(wait)
	pause := 5 * time.Millisecond
	for {
		v, err := try()
		if err == nil || !isBusy(err) || !time.Now().Before(deadline) {
			return v, err
		}
		d := pause/2 + rand.N(pause)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
		pause = min(pause*2, 200*time.Millisecond)
	}
}

package sessions

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// BenchmarkJournalDurable measures durable events per second through the journal: grouped
// commits at synchronous=FULL (every group fsynced), as the runtime publishes them.
func BenchmarkJournalDurable(b *testing.B) {
	for _, sync := range []Synchronous{SyncFull, SyncNormal} {
		b.Run(sync.String(), func(b *testing.B) {
			ctx := context.Background()
			st := openTestStore(b, WithSynchronous(sync))
			sess := createSession(b, st, Meta{Exam: testExam()})
			j := openJournal(b, st, sess.ID)
			evs := crashEvents(b, sess.ID, b.N)
			b.ResetTimer()
			start := time.Now()
			for _, ev := range evs {
				if err := j.Publish(ev); err != nil {
					b.Fatal(err)
				}
			}
			if err := j.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
			b.StopTimer()
			if err := j.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkReplayStart100k measures opening the store and starting the replay of a
// 100,000-event session: the time until the first event is emitted.
func BenchmarkReplayStart100k(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	st := openStore(b, dir, WithSynchronous(SyncNormal))
	recordSession(b, st, "big00001", func(id string) []runtime.Event { return manyEvents(b, id, 100_000) })
	closeStore(b, st)
	b.ResetTimer()
	for b.Loop() {
		replayFirstEvent(ctx, b, func() (*Store, error) { return Open(ctx, dir) }, "big00001")
	}
}

// replayFirstEvent opens a store, starts replaying session id, stops at its first event and
// closes the store: the wait before `examtui replay` shows anything.
func replayFirstEvent(ctx context.Context, b *testing.B, open func() (*Store, error), id string) {
	st, err := open()
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPlayer(st.Events(ctx, id, 1))
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Run(ctx, func(runtime.Event) error { return errReplayStarted }); !errors.Is(err, errReplayStarted) {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
}

// errReplayStarted stops a replay at its first event.
var errReplayStarted = errors.New("started")

// BenchmarkSessionsList1000 measures what `examtui sessions list` does over 1,000 sessions:
// open the store, list, close.
func BenchmarkSessionsList1000(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	st := openStore(b, dir, WithSynchronous(SyncNormal))
	for i := range 1000 {
		start := fixtureStart.Add(time.Duration(i) * time.Hour)
		recordSession(b, st, fmt.Sprintf("list%04d", i), func(id string) []runtime.Event {
			if i%10 == 0 {
				return manyEvents(b, id, 5) // some interrupted
			}
			return examEvents(b, id, start)
		})
	}
	closeStore(b, st)
	b.ResetTimer()
	for b.Loop() {
		st, err := Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		list, err := st.List(ctx)
		if err != nil || len(list) != 1000 {
			b.Fatalf("listed %d: %v", len(list), err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

package sessions

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// The benchmarks below run both engines side by side (sub-benchmarks sqlite and postgres):
//
//	go test -run '^$' -bench 'BenchmarkStore' ./sessions/

// forEachEngineB runs f once per engine as a sub-benchmark.
func forEachEngineB(b *testing.B, f func(b *testing.B, eng testEngine)) {
	for _, eng := range testEngines {
		b.Run(eng.name, func(b *testing.B) { f(b, eng) })
	}
}

// BenchmarkStoreDurable10Sessions measures durable events per second with grouped commits
// while 10 sessions write at once, each through its own journal (SQLite at synchronous=FULL;
// PostgreSQL with synchronous_commit on, its default).
func BenchmarkStoreDurable10Sessions(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, eng testEngine) {
		const sessions = 10
		ctx := context.Background()
		st := eng.open(b)
		per := max(b.N/sessions, 1)
		journals := make([]*Journal, sessions)
		streams := make([][]runtime.Event, sessions)
		for i := range journals {
			sess := createSession(b, st, Meta{Exam: testExam()})
			journals[i] = openJournal(b, st, sess.ID)
			streams[i] = crashEvents(b, sess.ID, per)
		}
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, sessions)
		for i := range journals {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, ev := range streams[i] {
					if err := journals[i].Publish(ev); err != nil {
						errs[i] = err
						return
					}
				}
				errs[i] = journals[i].Flush(ctx)
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.StopTimer()
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(per*sessions)/elapsed.Seconds(), "events/s")
		for _, j := range journals {
			if err := j.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoreOpen100k measures opening the store and then either starting the replay of a
// 100,000-event session (until the first event is emitted) or loading everything a resume needs
// (the exam and all 100,000 events).
func BenchmarkStoreOpen100k(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, eng testEngine) {
		ctx := context.Background()
		target := eng.target(b)
		st := openStore(b, target, WithSynchronous(SyncNormal))
		half := manyEvents(b, "big00001", 100_000)
		recordSession(b, st, "big00001", func(string) []runtime.Event { return half[:len(half)-1] })
		createSession(b, st, Meta{ID: "big00002", Exam: testExam()})
		closeStore(b, st)
		b.Run("replay-first-event", func(b *testing.B) {
			for b.Loop() {
				replayFirstEvent(ctx, b, func() (*Store, error) { return OpenURL(ctx, target) }, "big00001")
			}
		})
		b.Run("resume-load-all", func(b *testing.B) {
			for b.Loop() {
				st, err := OpenURL(ctx, target)
				if err != nil {
					b.Fatal(err)
				}
				_, evs, err := st.ResumeData(ctx, "big00001")
				if err != nil || len(evs) != 99_999 {
					b.Fatalf("%d events, %v", len(evs), err)
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// seedSessions writes n finished sessions' rows directly (a list reads only the sessions
// table and its aggregates, so no events are needed), some interrupted.
func seedSessions(b *testing.B, st *Store, n int) {
	ctx := context.Background()
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	examJSON := []byte(`{"id":"hotel-breakfast","title":"Hotel breakfast"}`)
	sum, err := putExam(ctx, tx, examJSON)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		r := rawSession{id: fmt.Sprintf("list%05d", i), examID: "hotel-breakfast", title: "Hotel breakfast",
			candidate: fmt.Sprintf("Candidate %d", i), examiner: "offline", input: "typed", state: "completed",
			examSum: sum, recordings: "[]", startedNs: fixtureStart.Add(time.Duration(i) * time.Minute).UnixNano(),
			events: 43, evidence: 4, coverage: 0.75, summarized: 1}
		r.lastNs.Int64, r.lastNs.Valid = r.startedNs+int64(91*time.Second), true
		if i%10 == 0 {
			r.state, r.interrupted, r.summarized = "in_progress", 1, 0
		} else {
			r.endedNs = r.lastNs
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (`+rawColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.args()...); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStoreList10k measures what `examtui sessions list` does over 10,000 sessions: open
// the store, list, close (open-list-close), and the list query alone (list).
func BenchmarkStoreList10k(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, eng testEngine) {
		ctx := context.Background()
		const n = 10_000
		target := eng.target(b)
		st := openStore(b, target)
		seedSessions(b, st, n)
		b.Run("list", func(b *testing.B) {
			for b.Loop() {
				list, err := st.List(ctx)
				if err != nil || len(list) != n {
					b.Fatalf("listed %d: %v", len(list), err)
				}
			}
		})
		closeStore(b, st)
		b.Run("open-list-close", func(b *testing.B) {
			for b.Loop() {
				st, err := OpenURL(ctx, target)
				if err != nil {
					b.Fatal(err)
				}
				list, err := st.List(ctx)
				if err != nil || len(list) != n {
					b.Fatalf("listed %d: %v", len(list), err)
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

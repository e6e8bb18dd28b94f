package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// Journals that commit while another connection holds the write lock queue up, and their
// batches go into one transaction when the lock is free: one fsync for many sessions. Every
// event is still delivered only once it is stored.
func TestGroupCommitSharesTransactions(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	const n = 12
	journals := make([]*Journal, n)
	checks := make([]*storedCheck, n)
	for i := range n {
		sess := createSession(t, st, Meta{ID: fmt.Sprintf("grp%05d", i), Exam: testExam()})
		checks[i] = &storedCheck{st: st}
		journals[i] = openJournal(t, st, sess.ID, WithSubscribers(checks[i]))
	}

	// Another process's writer: hold SQLite's write lock while every journal publishes.
	other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.Join(st.Dir(), DBFile)}).EscapedPath()+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lockTx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	txsBefore := st.group.txs.Load()
	for i, j := range journals {
		ev := examEvents(t, j.SessionID(), fixtureStart)[0]
		if err := j.Publish(ev); err != nil {
			t.Fatalf("journal %d: %v", i, err)
		}
	}
	// Every writer has taken its event and is waiting on the committer.
	deadline := time.Now().Add(10 * time.Second)
	for _, j := range journals {
		for len(j.queue) > 0 {
			if time.Now().After(deadline) {
				t.Fatal("journals did not hand their batches over")
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := lockTx.Rollback(); err != nil {
		t.Fatal(err)
	}
	for i, j := range journals {
		if err := j.Flush(ctx); err != nil {
			t.Fatalf("journal %d: %v", i, err)
		}
	}
	txs := st.group.txs.Load() - txsBefore
	if txs >= n {
		t.Errorf("%d sessions took %d transactions, want fewer (grouped)", n, txs)
	}
	if got := st.group.largest.Load(); got < 2 {
		t.Errorf("largest group %d sessions, want several", got)
	}
	for i, c := range checks {
		c.mu.Lock()
		if len(c.errs) > 0 || len(c.seen) != 1 {
			t.Errorf("journal %d: delivered %v, errors %v", i, c.seen, c.errs)
		}
		c.mu.Unlock()
	}
	t.Logf("%d sessions in %d transactions (largest %d)", n, txs, st.group.largest.Load())
}

// A batch that cannot be stored fails its own session only, not the others it shared a
// transaction with.
func TestGroupCommitIsolatesAFailingBatch(t *testing.T) {
	st := openTestStore(t)
	ids := []string{"iso00001", "iso00002", "iso00003"}
	var reqs []*commitReq
	for _, id := range ids {
		createSession(t, st, Meta{ID: id, Exam: testExam()})
		evs := examEvents(t, id, fixtureStart)[:3]
		reqs = append(reqs, &commitReq{id: id, batch: evs, agg: newAggregate(testExam(), runtime.StateCreated), err: make(chan error, 1)})
	}
	// Session 2's seq 2 is already stored (as by another writer): its insert fails.
	bad := reqs[1].batch[1]
	if _, err := st.db.Exec(insertEventSQL, bad.SessionID, bad.Seq, string(bad.Event), bad.Timestamp.UnixNano(), []byte(bad.Payload)); err != nil {
		t.Fatal(err)
	}
	st.group.commitGroup(reqs)
	for i, r := range reqs {
		err := <-r.err
		if (err != nil) != (i == 1) {
			t.Errorf("session %s: commit error %v", r.id, err)
		}
		if i != 1 && (r.out == nil || r.out.eventCount != 3) {
			t.Errorf("session %s: aggregate after commit %+v", r.id, r.out)
		}
	}
	for i, id := range ids {
		evs := loadEvents(t, st, id)
		want := 3
		if i == 1 {
			want = 1 // only the row stored beforehand
		}
		if len(evs) != want {
			t.Errorf("session %s: %d events stored, want %d", id, len(evs), want)
		}
	}
}

// Publishing from many journals at once loses nothing and keeps each session's order.
func TestGroupCommitManyJournals(t *testing.T) {
	st := openTestStore(t)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		sess := createSession(t, st, Meta{ID: fmt.Sprintf("many%04d", i), Exam: testExam()})
		rec := &recorder{}
		j := openJournal(t, st, sess.ID, WithSubscribers(rec))
		wg.Add(1)
		go func() {
			defer wg.Done()
			evs := examEvents(t, sess.ID, fixtureStart)
			for _, ev := range evs {
				if err := j.Publish(ev); err != nil {
					errs <- err
					return
				}
			}
			if err := j.Close(); err != nil {
				errs <- err
				return
			}
			got := rec.Events()
			if len(got) != len(evs) {
				errs <- fmt.Errorf("%s: delivered %d of %d", sess.ID, len(got), len(evs))
				return
			}
			for k, ev := range got {
				if ev.Seq != int64(k+1) {
					errs <- fmt.Errorf("%s: order broken at %d", sess.ID, k)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range n {
		s := getSession(t, st, fmt.Sprintf("many%04d", i))
		if s.EventCount != int64(len(examEvents(t, s.ID, fixtureStart))) || s.EndedAt.IsZero() {
			t.Errorf("%s: %d events, ended %v", s.ID, s.EventCount, s.EndedAt)
		}
	}
}

// A store closed while nothing is pending stops its committer; a late commit is refused.
func TestGroupCommitAfterClose(t *testing.T) {
	st, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := st.group
	closeStore(t, st)
	if _, err := g.commit("x", nil, newAggregate(testExam(), runtime.StateCreated)); !errors.Is(err, ErrStoreClosed) {
		t.Fatalf("commit after close: %v, want ErrStoreClosed", err)
	}
}

package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/examtui/examtui/runtime"
)

// maxGroup bounds how many journals' batches one transaction commits.
const maxGroup = 256

// groupCommitter commits the journals of one SQLite store together. Every journal's writer
// hands its batch over and waits; the committer takes every batch waiting when it starts a
// transaction and commits them all in it. N exams writing at once then cost one write lock and
// one fsync instead of N, each waiting for the lock (SQLite's busy handler backs off in steps
// of up to 100 ms) and for the disk in turn. Nothing is shown earlier than before: a journal
// still delivers its events only after the transaction that holds them has committed.
type groupCommitter struct {
	db     *sqlDB
	insert *sql.Stmt
	update *sql.Stmt
	reqs   chan *commitReq // unbuffered: a send succeeds only when run takes the request
	quit   chan struct{}
	done   chan struct{}

	txs     atomic.Int64 // transactions committed
	largest atomic.Int64 // the most sessions one transaction committed
}

// commitReq is one journal's batch. agg is the journal's aggregate before the batch (read,
// never changed); out is the aggregate after it, set when the batch committed.
type commitReq struct {
	id    string
	batch []runtime.Event
	agg   *aggregate
	out   *aggregate
	err   chan error
}

func newGroupCommitter(ctx context.Context, db *sqlDB) (*groupCommitter, error) {
	insert, err := db.PrepareContext(ctx, insertEventSQL)
	if err != nil {
		return nil, fmt.Errorf("group commit: %w", err)
	}
	update, err := db.PrepareContext(ctx, updateAggregateSQL)
	if err != nil {
		_ = insert.Close()
		return nil, fmt.Errorf("group commit: %w", err)
	}
	g := &groupCommitter{db: db, insert: insert, update: update,
		reqs: make(chan *commitReq), quit: make(chan struct{}), done: make(chan struct{})}
	go g.run()
	return g, nil
}

// commit commits batch for session id in the next group and returns the session's aggregate
// with the batch applied.
func (g *groupCommitter) commit(id string, batch []runtime.Event, agg *aggregate) (*aggregate, error) {
	r := &commitReq{id: id, batch: batch, agg: agg, err: make(chan error, 1)}
	select {
	case g.reqs <- r:
	case <-g.quit:
		return nil, ErrStoreClosed
	}
	if err := <-r.err; err != nil {
		return nil, err
	}
	return r.out, nil
}

// close stops the committer once no journal is left to use it.
func (g *groupCommitter) close() error {
	close(g.quit)
	<-g.done
	return errors.Join(g.insert.Close(), g.update.Close())
}

func (g *groupCommitter) run() {
	defer close(g.done)
	group := make([]*commitReq, 0, maxGroup)
	for {
		select {
		case r := <-g.reqs:
			group = append(group[:0], r)
		case <-g.quit:
			return
		}
		// Everyone who queued while the last transaction was on disk joins this one.
	fill:
		for len(group) < maxGroup {
			select {
			case r := <-g.reqs:
				group = append(group, r)
			default:
				break fill
			}
		}
		g.commitGroup(group)
	}
}

func (g *groupCommitter) commitGroup(group []*commitReq) {
	err := g.commitTx(group)
	if err == nil || len(group) == 1 || isBusy(err) {
		for _, r := range group {
			r.err <- err
		}
		return
	}
	// One batch broke the shared transaction (nothing of it is stored): commit each alone, so
	// that only the session at fault fails.
	for _, r := range group {
		r.err <- g.commitTx([]*commitReq{r})
	}
}

func (g *groupCommitter) commitTx(group []*commitReq) error {
	ctx := context.Background() // a commit in progress is never abandoned half-way
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	ins, upd := tx.StmtContext(ctx, g.insert), tx.StmtContext(ctx, g.update)
	outs := make([]*aggregate, len(group))
	for i, r := range group {
		agg := r.agg.clone()
		for _, ev := range r.batch {
			if _, err := ins.ExecContext(ctx, r.id, ev.Seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload)); err != nil {
				return fmt.Errorf("session %s: insert seq %d: %w", r.id, ev.Seq, err)
			}
			agg.apply(ev)
		}
		if _, err := upd.ExecContext(ctx, aggregateArgs(agg, r.id)...); err != nil {
			return fmt.Errorf("session %s: update session: %w", r.id, err)
		}
		outs[i] = agg
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for i, r := range group {
		r.out = outs[i]
	}
	g.txs.Add(1)
	for n := int64(len(group)); ; {
		old := g.largest.Load()
		if n <= old || g.largest.CompareAndSwap(old, n) {
			break
		}
	}
	return nil
}

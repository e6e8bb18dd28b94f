package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// Subscriber receives committed events. Deliver runs on the journal's writer goroutine and
// must not block: a slow reader buffers on its own side.
type Subscriber = runtime.Subscriber

// The journal is the runtime's event sink.
var _ runtime.Sink = (*Journal)(nil)

// Journal is a session's write-ahead event log and a runtime.Sink. Publish queues an event;
// one writer goroutine commits queued events in groups (one transaction per group) and only
// then delivers them, in seq order, to subscribers.
type Journal struct {
	store *Store
	id    string
	cfg   journalConfig
	log   *slog.Logger
	agg   *aggregate
	lock  lease

	pubMu   sync.Mutex // serialises the seq check with the enqueue
	nextSeq int64      // guarded by pubMu
	closed  bool       // guarded by pubMu
	queue   chan runtime.Event

	mu        sync.Mutex
	committed int64         // highest committed seq
	failure   error         // sticky: once a commit fails the journal accepts nothing more
	changed   chan struct{} // closed and replaced whenever committed or failure changes
	failed    chan struct{} // closed when failure is set
	subs      []Subscriber

	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// JournalOption configures a Journal.
type JournalOption func(*journalConfig) error

type journalConfig struct {
	queueSize  int
	maxBatch   int
	subs       []Subscriber
	redaction  RedactionMode
	waitCommit bool
}

// WithQueueSize bounds how many events may wait for a commit; Publish blocks beyond it
// (default 4096).
func WithQueueSize(n int) JournalOption {
	return func(c *journalConfig) error {
		if n < 1 {
			return fmt.Errorf("%w: queue size %d", ErrInvalidOption, n)
		}
		c.queueSize = n
		return nil
	}
}

// WithMaxBatch bounds how many events one transaction commits (default 512).
func WithMaxBatch(n int) JournalOption {
	return func(c *journalConfig) error {
		if n < 1 {
			return fmt.Errorf("%w: max batch %d", ErrInvalidOption, n)
		}
		c.maxBatch = n
		return nil
	}
}

// WithSubscribers adds subscribers that see every event after it is committed.
func WithSubscribers(subs ...Subscriber) JournalOption {
	return func(c *journalConfig) error {
		for _, s := range subs {
			if s == nil {
				return fmt.Errorf("%w: nil subscriber", ErrInvalidOption)
			}
		}
		c.subs = append(c.subs, subs...)
		return nil
	}
}

// WithRedaction sets what happens to secret-looking values in payloads (default RedactMask).
func WithRedaction(m RedactionMode) JournalOption {
	return func(c *journalConfig) error {
		if m != RedactMask && m != RedactRefuse {
			return fmt.Errorf("%w: redaction %v", ErrInvalidOption, m)
		}
		c.redaction = m
		return nil
	}
}

// WithWaitCommit makes Publish return only once its event is committed, for callers that
// deliver events themselves after Publish returns (runtime.Fanout.Chain). It costs a
// transaction per event when there is a single publisher.
func WithWaitCommit() JournalOption {
	return func(c *journalConfig) error {
		c.waitCommit = true
		return nil
	}
}

// Journal opens the write-ahead journal of a session. A new session continues at seq 1; an
// interrupted one (resume) continues after its last stored event and stops being interrupted.
// One journal per session at a time, across processes.
func (s *Store) Journal(ctx context.Context, id string, opts ...JournalOption) (*Journal, error) {
	cfg := journalConfig{queueSize: 4096, maxBatch: 512}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !sess.EndedAt.IsZero() {
		return nil, fmt.Errorf("journal %s: %w", id, ErrSessionEnded)
	}
	exam, err := sess.Exam()
	if err != nil {
		return nil, err
	}

	lock, err := s.takeLease(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", id, err)
	}
	j, err := s.openJournal(ctx, sess, exam, lock, cfg)
	if err != nil {
		_ = lock.release()
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = lock.release()
		return nil, ErrStoreClosed
	}
	s.journals[id] = j
	s.mu.Unlock()
	go j.run()
	return j, nil
}

func (s *Store) openJournal(ctx context.Context, sess *Session, exam *spec.Exam, lock lease, cfg journalConfig) (*Journal, error) {
	id := sess.ID
	// Rebuild the aggregate from what is stored, and check the stored seq has no gaps before
	// appending to it.
	agg := newAggregate(exam, runtime.StateCreated)
	if err := replayAggregate(ctx, s.db, id, "events", agg); err != nil {
		return nil, fmt.Errorf("journal %s: %w", id, err)
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE session_id = ?`, id).Scan(&n); err != nil {
		return nil, fmt.Errorf("journal %s: %w", id, err)
	}
	if n != agg.eventCount {
		return nil, fmt.Errorf("journal %s: stored seq has gaps (%d events, last seq %d)", id, n, agg.eventCount)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE sessions SET interrupted = 0, owner_pid = ? WHERE id = ?`, os.Getpid(), id); err != nil {
		return nil, fmt.Errorf("journal %s: take ownership: %w", id, err)
	}
	// SQLite commits through the store's group committer (groupcommit.go); PostgreSQL
	// through the lease connection (commitPG).
	return &Journal{
		store: s, id: id, cfg: cfg, log: s.log.With("session", id), agg: agg, lock: lock,
		nextSeq: agg.eventCount + 1, queue: make(chan runtime.Event, cfg.queueSize),
		committed: agg.eventCount, changed: make(chan struct{}), failed: make(chan struct{}), subs: slices.Clone(cfg.subs),
		done: make(chan struct{}),
	}, nil
}

// SessionID is the journal's session.
func (j *Journal) SessionID() string { return j.id }

// NextSeq is the seq the next published event must carry.
func (j *Journal) NextSeq() int64 {
	j.pubMu.Lock()
	defer j.pubMu.Unlock()
	return j.nextSeq
}

// Subscribe adds a subscriber for events committed from now on. The returned function removes it.
func (j *Journal) Subscribe(sub Subscriber) (unsubscribe func()) {
	j.mu.Lock()
	j.subs = append(j.subs, sub)
	j.mu.Unlock()
	return func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		for i, x := range j.subs {
			if sameSubscriber(x, sub) {
				j.subs = slices.Delete(slices.Clone(j.subs), i, i+1)
				return
			}
		}
	}
}

func sameSubscriber(a, b Subscriber) (same bool) {
	defer func() {
		if recover() != nil { // uncomparable dynamic types (func adapters)
			same = false
		}
	}()
	return a == b
}

// Publish queues ev for the next group commit. It blocks while the queue is full. ev must
// belong to the journal's session and carry exactly the next seq; secret-looking payload
// values are masked (or the event refused, with RedactRefuse).
func (j *Journal) Publish(ev runtime.Event) error {
	if ev.SessionID != j.id {
		return fmt.Errorf("%w: event for %q published to journal of %q", ErrWrongSession, ev.SessionID, j.id)
	}
	if !slices.Contains(runtime.EventTypes, ev.Event) {
		return fmt.Errorf("seq %d: %w: %q", ev.Seq, runtime.ErrUnknownEvent, ev.Event)
	}
	if ev.Timestamp.IsZero() {
		return fmt.Errorf("seq %d (%s): %w: no timestamp", ev.Seq, ev.Event, ErrInvalidEvent)
	}
	if !json.Valid(ev.Payload) {
		return fmt.Errorf("seq %d (%s): %w: payload is not valid JSON", ev.Seq, ev.Event, ErrInvalidEvent)
	}
	if masked, found := textsafe.MaskSecretsJSON(ev.Payload); found {
		if j.cfg.redaction == RedactRefuse {
			return fmt.Errorf("seq %d (%s): %w", ev.Seq, ev.Event, ErrSecretInPayload)
		}
		j.log.Warn("masked a secret-looking value in an event payload", "seq", ev.Seq, "event", ev.Event)
		ev.Payload = masked
	} else {
		ev.Payload = slices.Clone(ev.Payload) // the caller may reuse its buffer
	}
	ev.Timestamp = ev.Timestamp.UTC()

	j.pubMu.Lock()
	if j.closed {
		j.pubMu.Unlock()
		return ErrJournalClosed
	}
	if err := j.err(); err != nil {
		j.pubMu.Unlock()
		return err
	}
	if ev.Seq != j.nextSeq {
		want := j.nextSeq
		j.pubMu.Unlock()
		kind := "gap"
		if ev.Seq < want {
			kind = "duplicate or old"
		}
		return fmt.Errorf("%w: got seq %d (%s), want %d", ErrSeqOutOfOrder, ev.Seq, kind, want)
	}
	j.nextSeq++
	j.queue <- ev // blocks when full: backpressure on the publisher
	j.pubMu.Unlock()
	if j.cfg.waitCommit {
		return j.waitFor(context.Background(), ev.Seq)
	}
	return nil
}

// Failed is closed when a commit fails; from then on the journal accepts no event and Err says
// why. A driver that is not about to publish (waiting for input, or for the clock) selects on it
// so that a store gone mid-exam stops the run at once instead of at the next event.
func (j *Journal) Failed() <-chan struct{} { return j.failed }

// Err is the commit failure that closed Failed, or nil.
func (j *Journal) Err() error { return j.err() }

func (j *Journal) err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.failure
}

// Flush waits until every event published before the call is committed and delivered.
func (j *Journal) Flush(ctx context.Context) error {
	j.pubMu.Lock()
	target := j.nextSeq - 1
	j.pubMu.Unlock()
	return j.waitFor(ctx, target)
}

func (j *Journal) waitFor(ctx context.Context, seq int64) error {
	for {
		j.mu.Lock()
		committed, failure, changed := j.committed, j.failure, j.changed
		j.mu.Unlock()
		if committed >= seq {
			return nil
		}
		if failure != nil {
			return failure
		}
		select {
		case <-changed:
		case <-j.done:
			j.mu.Lock()
			committed, failure = j.committed, j.failure
			j.mu.Unlock()
			if committed >= seq {
				return nil
			}
			if failure != nil {
				return failure
			}
			return ErrJournalClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close commits everything queued, stops the writer and gives up ownership of the session.
// A session that has not ended is left interrupted, so it can be resumed.
func (j *Journal) Close() error {
	j.closeOnce.Do(func() {
		j.pubMu.Lock()
		j.closed = true
		close(j.queue)
		j.pubMu.Unlock()
		<-j.done

		var errs []error
		if err := j.err(); err != nil {
			errs = append(errs, err)
		}
		if !j.agg.ended() {
			if _, err := j.store.db.Exec(`UPDATE sessions SET interrupted = 1 WHERE id = ? AND ended_ns IS NULL`, j.id); err != nil {
				errs = append(errs, fmt.Errorf("mark %s interrupted: %w", j.id, err))
			}
		}
		if j.agg.ended() && len(errs) == 0 {
			j.removeLockFile()
		}
		errs = append(errs, j.lock.release())
		j.store.mu.Lock()
		delete(j.store.journals, j.id)
		j.store.mu.Unlock()
		j.closeErr = errors.Join(errs...)
	})
	return j.closeErr
}

// run is the writer: it takes what is queued (up to maxBatch), commits it in one transaction,
// then delivers it. It exits when the queue is closed and drained.
func (j *Journal) run() {
	defer close(j.done)
	batch := make([]runtime.Event, 0, j.cfg.maxBatch)
	for {
		ev, ok := <-j.queue
		if !ok {
			return
		}
		batch = append(batch[:0], ev)
	fill:
		for len(batch) < j.cfg.maxBatch {
			select {
			case ev, ok := <-j.queue:
				if !ok {
					break fill
				}
				batch = append(batch, ev)
			default:
				break fill
			}
		}
		if j.err() != nil {
			continue // failed: drain so blocked publishers wake up and see the error
		}
		if err := j.commit(batch); err != nil {
			j.log.Error("journal commit failed; the session accepts no more events", "err", err,
				"first_seq", batch[0].Seq, "last_seq", batch[len(batch)-1].Seq)
			j.mu.Lock()
			j.failure = fmt.Errorf("journal %s: commit seq %d..%d: %w", j.id, batch[0].Seq, batch[len(batch)-1].Seq, err)
			close(j.failed)
			close(j.changed)
			j.changed = make(chan struct{})
			j.mu.Unlock()
			continue
		}
		j.mu.Lock()
		subs := j.subs
		j.mu.Unlock()
		for _, ev := range batch {
			for _, s := range subs {
				s.Deliver(ev)
			}
		}
		j.mu.Lock()
		j.committed = batch[len(batch)-1].Seq
		close(j.changed)
		j.changed = make(chan struct{})
		j.mu.Unlock()
	}
}

// commit writes one batch and the session's aggregates in one transaction (on SQLite shared
// with the batches other journals of the store commit at the same moment), retrying a few
// times when another process holds the write lock past the busy timeout.
func (j *Journal) commit(batch []runtime.Event) error {
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
		// The aggregate is applied to a copy so a failed attempt leaves it untouched.
		var agg *aggregate
		if j.store.engine == EnginePostgres {
			agg = j.agg.clone()
			err = j.commitPG(batch, agg)
		} else {
			agg, err = j.store.group.commit(j.id, batch, j.agg)
		}
		if err == nil {
			j.agg = agg
			return nil
		}
		if !isBusy(err) {
			return err
		}
	}
	return err
}

const insertEventSQL = `INSERT INTO events (session_id, seq, type, ts_ns, payload) VALUES (?, ?, ?, ?, ?)`

// updateAggregateSQL writes a session's aggregates; aggregateArgs gives its arguments.
const updateAggregateSQL = `UPDATE sessions SET state = ?, ended_ns = ?, event_count = ?,
	last_event_ns = ?, evidence_count = ?, coverage = ?, summarized = ?, usage = ? WHERE id = ?`

func aggregateArgs(agg *aggregate, id string) []any {
	summarized := 0
	if agg.completed {
		summarized = 1
	}
	return []any{string(agg.state), nullNs(agg.endedNs), agg.eventCount, nullNs(agg.lastEventNs),
		agg.evidenceCount, agg.coverage(), summarized, agg.usageJSON(), id}
}

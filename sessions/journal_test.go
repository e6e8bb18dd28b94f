package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/runtime"
)

// storedCheck is a subscriber that, for every event it is given, checks on its own connection
// that the event is already in the store: the write-ahead rule.
type storedCheck struct {
	st   *Store
	mu   sync.Mutex
	seen []int64
	errs []string
}

func (c *storedCheck) Deliver(ev runtime.Event) {
	var n int
	err := c.st.db.QueryRow(`SELECT count(*) FROM events WHERE session_id = ? AND seq = ?`, ev.SessionID, ev.Seq).Scan(&n)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || n != 1 {
		c.errs = append(c.errs, fmt.Sprintf("seq %d delivered before it was stored (%v)", ev.Seq, err))
	}
	c.seen = append(c.seen, ev.Seq)
}

func TestJournalDeliversOnlyCommitted(t *testing.T) {
	forEachEngine(t, testJournalDeliversOnlyCommitted)
}

func testJournalDeliversOnlyCommitted(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	sess := createSession(t, st, Meta{ID: "wal00001", Exam: testExam()})
	check := &storedCheck{st: st}
	j := openJournal(t, st, sess.ID, WithSubscribers(check), WithMaxBatch(7))
	evs := examEvents(t, sess.ID, fixtureStart)
	publishAll(t, j, evs)
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	check.mu.Lock()
	if len(check.errs) > 0 {
		t.Errorf("write-ahead rule broken: %v", check.errs)
	}
	if len(check.seen) != len(evs) {
		t.Errorf("delivered %d events, want %d", len(check.seen), len(evs))
	}
	for i, s := range check.seen {
		if s != int64(i+1) {
			t.Fatalf("delivery order broken at %d: seq %d", i, s)
		}
	}
	check.mu.Unlock()
	closeJournal(t, j)
	stored := loadEvents(t, st, sess.ID)
	for i := range evs {
		a, _ := json.Marshal(evs[i])
		b, _ := json.Marshal(stored[i])
		if string(a) != string(b) {
			t.Fatalf("seq %d round trip:\n got %s\nwant %s", i+1, b, a)
		}
	}
	if err := j.Publish(evs[0]); !errors.Is(err, ErrJournalClosed) {
		t.Errorf("Publish after Close = %v, want ErrJournalClosed", err)
	}
	if _, err := st.Journal(ctx, sess.ID); !errors.Is(err, ErrSessionEnded) {
		t.Errorf("Journal of an ended session = %v, want ErrSessionEnded", err)
	}
}

func TestJournalRejects(t *testing.T) { forEachEngine(t, testJournalRejects) }

func testJournalRejects(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	sess := createSession(t, st, Meta{ID: "rej00001", Exam: testExam()})
	j := openJournal(t, st, sess.ID)
	defer j.Close()
	evs := examEvents(t, sess.ID, fixtureStart)
	publishAll(t, j, evs[:3])
	mod := func(ev runtime.Event, f func(*runtime.Event)) runtime.Event { f(&ev); return ev }
	tests := []struct {
		name string
		ev   runtime.Event
		want error
	}{
		{"duplicate seq", evs[2], ErrSeqOutOfOrder},
		{"old seq", evs[0], ErrSeqOutOfOrder},
		{"gap", evs[5], ErrSeqOutOfOrder},
		{"other session", mod(evs[3], func(e *runtime.Event) { e.SessionID = "someone-else" }), ErrWrongSession},
		{"unknown type", mod(evs[3], func(e *runtime.Event) { e.Event = "telemetry" }), runtime.ErrUnknownEvent},
		{"bad payload", mod(evs[3], func(e *runtime.Event) { e.Payload = json.RawMessage(`{"nodeId":`) }), ErrInvalidEvent},
		{"no timestamp", mod(evs[3], func(e *runtime.Event) { e.Timestamp = time.Time{} }), ErrInvalidEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := j.Publish(tt.ev)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Publish = %v, want %v", err, tt.want)
			}
		})
	}
	// A rejected event loses nothing: the stream continues at the right seq.
	if j.NextSeq() != 4 {
		t.Fatalf("next seq %d after rejections, want 4", j.NextSeq())
	}
	if err := j.Publish(evs[3]); err != nil {
		t.Fatal(err)
	}
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestJournalRedaction(t *testing.T) { forEachEngine(t, testJournalRedaction) }

func testJournalRedaction(t *testing.T, eng testEngine) {
	const (
		apiKey = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789"
		jwt    = "eyJhbGciOiJIUzI1NiJ9.eyJ2aWRlbyI6eyJyb29tIjoiZXhhbSJ9fQ.Q2hlY2tzdW1TaWduYXR1cmVWYWx1ZQ"
	)
	tests := []struct {
		name    string
		text    string
		mode    RedactionMode
		wantErr error
		secret  string
	}{
		{"api key masked", "my key is " + apiKey + " ok", RedactMask, nil, apiKey},
		{"livekit token masked", "token " + jwt, RedactMask, nil, jwt},
		{"bearer masked", "Authorization: Bearer abcdefghijklmnopqrstuvwx", RedactMask, nil, "abcdefghijklmnopqrstuvwx"},
		{"refused", "key " + apiKey, RedactRefuse, ErrSecretInPayload, ""},
		{"plain text kept", "the ask- price of sk-1 is low", RedactRefuse, nil, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := eng.open(t)
			sess := createSession(t, st, Meta{Exam: testExam()})
			var rec recorder
			j := openJournal(t, st, sess.ID, WithRedaction(tt.mode), WithSubscribers(&rec))
			ev, err := runtime.NewEvent(sess.ID, 1, fixtureStart, cand("welcome", "s", tt.text, 1, int64(i)))
			if err != nil {
				t.Fatal(err)
			}
			err = j.Publish(ev)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Publish = %v, want %v", err, tt.wantErr)
			}
			closeJournal(t, j)
			stored := loadEvents(t, st, sess.ID)
			if tt.wantErr != nil {
				if len(stored) != 0 {
					t.Fatalf("refused event was stored")
				}
				return
			}
			if len(stored) != 1 || !json.Valid(stored[0].Payload) {
				t.Fatalf("stored %v", stored)
			}
			if tt.secret != "" {
				for _, got := range []runtime.Event{stored[0], rec.Events()[0]} {
					if strings.Contains(string(got.Payload), tt.secret) || !strings.Contains(string(got.Payload), Redacted) {
						t.Errorf("secret not masked: %s", got.Payload)
					}
				}
			} else if string(stored[0].Payload) != string(ev.Payload) {
				t.Errorf("harmless payload changed: %s", stored[0].Payload)
			}
		})
	}
}

// blockingSub blocks delivery until released, to fill the journal's queue.
type blockingSub struct {
	release chan struct{}
	got     chan int64
}

func (b *blockingSub) Deliver(ev runtime.Event) {
	b.got <- ev.Seq
	<-b.release
}

// The test runs in a synctest bubble: synctest.Wait proves the publisher is blocked (every
// goroutine of the journal is waiting), where a sleep could only say it had not returned yet.
func TestJournalBackpressure(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		synctest.Test(t, func(t *testing.T) { testJournalBackpressure(t, eng) })
	})
}

func testJournalBackpressure(t *testing.T, eng testEngine) {
	st := eng.open(t)
	sess := createSession(t, st, Meta{ID: "bp000001", Exam: testExam()})
	sub := &blockingSub{release: make(chan struct{}), got: make(chan int64, 16)}
	j := openJournal(t, st, sess.ID, WithQueueSize(2), WithMaxBatch(1), WithSubscribers(sub))
	evs := examEvents(t, sess.ID, fixtureStart)
	if err := j.Publish(evs[0]); err != nil {
		t.Fatal(err)
	}
	<-sub.got // the writer holds seq 1 in delivery: the queue (2) is free
	publishAll(t, j, evs[1:3])
	blocked := make(chan error, 1)
	go func() { blocked <- j.Publish(evs[3]) }()
	synctest.Wait()
	select {
	case err := <-blocked:
		t.Fatalf("Publish into a full queue returned (%v) instead of blocking", err)
	default:
	}
	close(sub.release)
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	closeJournal(t, j)
	got := getSession(t, st, sess.ID)
	if got.EventCount != 4 {
		t.Errorf("stored %d events, want 4", got.EventCount)
	}
}

func TestJournalConcurrentPublishersKeepOrder(t *testing.T) {
	forEachEngine(t, testJournalConcurrentPublishersKeepOrder)
}

func testJournalConcurrentPublishersKeepOrder(t *testing.T, eng testEngine) {
	st := eng.open(t, WithSynchronous(SyncNormal))
	sess := createSession(t, st, Meta{ID: "conc0001", Exam: testExam()})
	var rec recorder
	j := openJournal(t, st, sess.ID, WithSubscribers(&rec), WithQueueSize(8))
	evs := manyEvents(t, sess.ID, 400)
	// Publishers race for the next seq; a loser gets ErrSeqOutOfOrder and retries, as a
	// controller serialising its own events never needs to.
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= len(evs) {
					mu.Unlock()
					return
				}
				ev := evs[next]
				next++
				err := j.Publish(ev)
				mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	closeJournal(t, j)
	got := rec.Events()
	if len(got) != len(evs) {
		t.Fatalf("delivered %d, want %d", len(got), len(evs))
	}
	for i, ev := range got {
		if ev.Seq != int64(i+1) {
			t.Fatalf("delivery %d has seq %d", i, ev.Seq)
		}
	}
}

func TestResume(t *testing.T) { forEachEngine(t, testResume) }

func testResume(t *testing.T, eng testEngine) {
	ctx := context.Background()
	dir := eng.target(t)
	st := openStore(t, dir)
	sess := createSession(t, st, Meta{ID: "res00001", Exam: testExam(), StartedAt: fixtureStart})
	j := openJournal(t, st, sess.ID)
	evs := examEvents(t, sess.ID, fixtureStart)
	half := len(evs) / 2
	publishAll(t, j, evs[:half])
	closeJournal(t, j) // the examiner quits mid-exam
	closeStore(t, st)

	st = openStore(t, dir)
	defer st.Close()
	got := getSession(t, st, sess.ID)
	if got.Status() != StatusInterrupted {
		t.Fatalf("status %v, want interrupted", got.Status())
	}
	exam, stored, err := st.ResumeData(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if exam.ID != testExam().ID || len(stored) != half {
		t.Fatalf("resume data: exam %q, %d events; want %d", exam.ID, len(stored), half)
	}
	j = openJournal(t, st, sess.ID)
	if j.NextSeq() != int64(half+1) {
		t.Fatalf("resumed journal next seq %d, want %d", j.NextSeq(), half+1)
	}
	if got, _ := st.Get(ctx, sess.ID); got.Status() != StatusRunning {
		t.Errorf("resumed session status %v, want running", got.Status())
	}
	publishAll(t, j, evs[half:])
	closeJournal(t, j)
	got = getSession(t, st, sess.ID)
	if got.Status() != StatusCompleted || got.EventCount != int64(len(evs)) || got.Coverage != 0.75 {
		t.Errorf("after resume: status %v, %d events, coverage %v", got.Status(), got.EventCount, got.Coverage)
	}
	if _, _, err := st.ResumeData(ctx, sess.ID); !errors.Is(err, ErrSessionEnded) {
		t.Errorf("ResumeData of an ended session = %v", err)
	}
}

func TestJournalOwnershipAcrossStores(t *testing.T) {
	forEachEngine(t, testJournalOwnershipAcrossStores)
}

func testJournalOwnershipAcrossStores(t *testing.T, eng testEngine) {
	ctx := context.Background()
	a := eng.open(t)
	sess := createSession(t, a, Meta{ID: "own00001", Exam: testExam()})
	b := openStore(t, a.openTarget)
	defer b.Close()
	if got, _ := b.Get(ctx, sess.ID); got.Status() != StatusRunning {
		t.Errorf("a live session seen from another store is %v, want running", got.Status())
	}
	if _, err := b.Journal(ctx, sess.ID); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("second owner Journal = %v, want ErrSessionBusy", err)
	}
	j := openJournal(t, a, sess.ID)
	if _, err := a.Journal(ctx, sess.ID); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("second journal in the same store = %v, want ErrSessionBusy", err)
	}
	closeJournal(t, j)
}

func TestJournalOptionsValidate(t *testing.T) { forEachEngine(t, testJournalOptionsValidate) }

func testJournalOptionsValidate(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	sess := createSession(t, st, Meta{Exam: testExam()})
	for name, opt := range map[string]JournalOption{
		"queue": WithQueueSize(0), "batch": WithMaxBatch(-1), "sub": WithSubscribers(nil), "redaction": WithRedaction(9),
	} {
		if _, err := st.Journal(ctx, sess.ID, opt); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: err = %v, want ErrInvalidOption", name, err)
		}
	}
}

// TestExamSecretsMasked: a credential typed into the exam's texts (its title, a node's prompt)
// is masked in the compiled exam stored with the session, as in events (it was stored as is).
func TestExamSecretsMasked(t *testing.T) { forEachEngine(t, testExamSecretsMasked) }

func testExamSecretsMasked(t *testing.T, eng testEngine) {
	const apiKey = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789"
	st := eng.open(t)
	exam := testExam()
	exam.Title = "Hotel exam " + apiKey
	exam.Nodes[0].Controller.ConversationPrompt = "Ask them; key " + apiKey
	sess := createSession(t, st, Meta{Exam: exam})
	got, err := st.Get(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got.ExamJSON), apiKey) || strings.Contains(got.Title, apiKey) {
		t.Fatalf("a secret is stored: title %q, exam %s", got.Title, got.ExamJSON)
	}
	back, err := got.Exam()
	if err != nil {
		t.Fatalf("the masked exam does not decode: %v", err)
	}
	if !strings.Contains(back.Title, Redacted) || back.Nodes[0].NodeID != exam.Nodes[0].NodeID {
		t.Fatalf("title %q, first node %q", back.Title, back.Nodes[0].NodeID)
	}
}

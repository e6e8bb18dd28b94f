package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

func TestDataDir(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, env, xdg, want string
	}{
		{"flag wins", "/tmp/flagdir", "/tmp/envdir", "/tmp/xdg", "/tmp/flagdir"},
		{"env next", "", "/tmp/envdir", "/tmp/xdg", "/tmp/envdir"},
		{"xdg next", "", "", "/tmp/xdg", "/tmp/xdg/examtui"},
		{"relative xdg ignored", "", "", "rel/xdg", filepath.Join(home, ".local/share/examtui")},
		{"home last", "", "", "", filepath.Join(home, ".local/share/examtui")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvDataDir, tt.env)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			got, err := DataDir(tt.flag)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("DataDir(%q) = %q, want %q", tt.flag, got, tt.want)
			}
		})
	}
}

func TestOpenPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	recordExam(t, st, "perm0001")
	closeStore(t, st)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, want 0700", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", e.Name(), fi.Mode().Perm(), want)
		}
	}
}

func TestCreateGetList(t *testing.T) { forEachEngine(t, testCreateGetList) }

func testCreateGetList(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	done := recordExam(t, st, "abc12345")
	if done.Status() != StatusCompleted {
		t.Errorf("status %v, want completed", done.Status())
	}
	if done.EventCount != int64(len(examEvents(t, "x", fixtureStart))) {
		t.Errorf("event count %d", done.EventCount)
	}
	if done.EvidenceCount != 4 {
		t.Errorf("evidence count %d, want 4", done.EvidenceCount)
	}
	if done.Coverage != 0.75 { // (1 + 0.5) / 2 assessment nodes
		t.Errorf("coverage %v, want 0.75", done.Coverage)
	}
	if got := done.Duration().Seconds(); got < 85 || got > 95 {
		t.Errorf("duration %v", done.Duration())
	}
	exam, err := done.Exam()
	if err != nil || exam.ID != "hospitality-oral-b2" || len(exam.Nodes) != 4 {
		t.Fatalf("stored exam %v, %v", exam, err)
	}
	createSession(t, st, Meta{ID: "abd99999", Exam: testExam()})
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("listed %d sessions, want 2", len(list))
	}
	if list[0].Status() != StatusRunning {
		t.Errorf("newly created session status %v, want running", list[0].Status())
	}
	if list[0].ExamJSON != nil {
		t.Error("List loaded exam JSON")
	}

	resolve := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"abc12345", "abc12345", nil},
		{"abc", "abc12345", nil},
		{"ABD", "abd99999", nil},
		{"ab", "", ErrAmbiguousID},
		{"zz", "", ErrNotFound},
		{"a%", "", ErrNotFound},
		{"", "", ErrNotFound},
	}
	for _, tt := range resolve {
		got, err := st.Resolve(ctx, tt.in)
		if !errors.Is(err, tt.wantErr) || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if _, err := st.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(nope) = %v, want ErrNotFound", err)
	}
}

func TestCreateValidates(t *testing.T) { forEachEngine(t, testCreateValidates) }

func testCreateValidates(t *testing.T, eng testEngine) {
	st := eng.open(t)
	tests := []struct {
		name string
		meta Meta
	}{
		{"no exam", Meta{ID: "aaaa1111"}},
		{"bad id", Meta{ID: "Bad ID!", Exam: testExam()}},
		{"bad input", Meta{Exam: testExam(), Input: "telepathy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := st.Create(context.Background(), tt.meta); !errors.Is(err, ErrInvalidMeta) {
				t.Errorf("err = %v, want ErrInvalidMeta", err)
			}
		})
	}
}

func TestDelete(t *testing.T) { forEachEngine(t, testDelete) }

func testDelete(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	recordExam(t, st, "del00001")
	live := createSession(t, st, Meta{ID: "del00002", Exam: testExam()})
	j := openJournal(t, st, live.ID)
	if err := st.Delete(ctx, live.ID); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("delete of a live session = %v, want ErrSessionBusy", err)
	}
	// Another store (another process, as far as locks go) cannot delete it either.
	other := openStore(t, st.openTarget)
	defer other.Close()
	if err := other.Delete(ctx, live.ID); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("delete from another store = %v, want ErrSessionBusy", err)
	}
	closeJournal(t, j)
	for _, id := range []string{"del00001", "del00002"} {
		if err := other.Delete(ctx, id); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
		if _, err := st.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("after delete Get(%s) = %v", id, err)
		}
		evs, err := st.LoadEvents(ctx, id)
		if err != nil || len(evs) != 0 {
			t.Errorf("after delete %d events left, %v", len(evs), err)
		}
	}
	if err := other.Delete(ctx, "del00001"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete = %v, want ErrNotFound", err)
	}
}

func TestStoreTooNew(t *testing.T) { forEachEngine(t, testStoreTooNew) }

func testStoreTooNew(t *testing.T, eng testEngine) {
	ctx := context.Background()
	dir := eng.target(t)
	st := openStore(t, dir)
	if _, err := st.db.Exec(`UPDATE schema_version SET version = ?`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := OpenURL(ctx, dir); !errors.Is(err, ErrStoreTooNew) {
		t.Fatalf("Open = %v, want ErrStoreTooNew", err)
	}
}

func TestEventsIteratorPages(t *testing.T) { forEachEngine(t, testEventsIteratorPages) }

func testEventsIteratorPages(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t, WithSynchronous(SyncNormal))
	n := eventPage*2 + 17
	recordSession(t, st, "page0001", func(id string) []runtime.Event { return manyEvents(t, id, n) })
	var want int64 = 100
	for ev, err := range st.Events(ctx, "page0001", 100) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Seq != want || ev.SessionID != "page0001" {
			t.Fatalf("got seq %d session %q, want %d", ev.Seq, ev.SessionID, want)
		}
		want++
	}
	if want != int64(n)+1 {
		t.Fatalf("iterated to %d, want %d", want-1, n)
	}
	// Stopping early must not leak or fail.
	count := 0
	for range st.Events(ctx, "page0001", 1) {
		count++
		if count == 3 {
			break
		}
	}
}

// manyEvents is a long stream of transcript segments, 50 ms apart.
func manyEvents(t testing.TB, id string, n int) []runtime.Event {
	s := newScript(t, id, fixtureStart)
	s.after(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	for i := 1; i < n; i++ {
		s.after(50_000_000, cand("scenario-hotel-breakfast", "seg", "we could open a grab-and-go counter for the business travellers", 0.9, int64(i*50)))
	}
	return s.events
}

// TestMarkStarted: a room exam's session counts its duration from the candidate's arrival and
// names the candidate who came; a session that has events keeps its start.
func TestMarkStarted(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	sess := createSession(t, st, Meta{ID: "room0001", Exam: testExam(), Examiner: "offline", StartedAt: fixtureStart})
	arrived := fixtureStart.Add(10 * time.Minute)
	if err := st.MarkStarted(ctx, sess.ID, arrived, " candidate-1\x1b]0;x\x07 "); err != nil {
		t.Fatal(err)
	}
	j := openJournal(t, st, sess.ID)
	publishAll(t, j, examEvents(t, sess.ID, arrived))
	closeJournal(t, j)
	got := getSession(t, st, sess.ID)
	if !got.StartedAt.Equal(arrived) || got.Candidate != "candidate-1]0;x" {
		t.Errorf("started %v candidate %q", got.StartedAt, got.Candidate)
	}
	if d := got.Duration(); d <= 0 || d > 2*time.Minute {
		t.Errorf("duration %v includes the wait", d)
	}
	if err := st.MarkStarted(ctx, sess.ID, arrived.Add(time.Hour), "x"); !errors.Is(err, ErrInvalidMeta) {
		t.Errorf("mark a session with events: %v", err)
	}
	if err := st.MarkStarted(ctx, "nosuch01", arrived, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("mark a missing session: %v", err)
	}
	named := createSession(t, st, Meta{ID: "room0002", Exam: testExam(), Candidate: "Priya"})
	if err := st.MarkStarted(ctx, named.ID, arrived, "candidate-2"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(ctx, named.ID); got.Candidate != "Priya" {
		t.Errorf("given candidate replaced: %q", got.Candidate)
	}
}

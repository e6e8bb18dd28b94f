package sessions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

func TestMaskTarget(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/var/lib/examtui", "/var/lib/examtui"},
		{"postgres://exam:s3cret@db:5432/exams", "postgres://exam:xxxxx@db:5432/exams"},
		{"postgresql://exam@db/exams", "postgresql://exam@db/exams"},
		{"postgres://db/exams?user=exam&password=s3cret", "postgres://db/exams?password=xxxxx&user=exam"},
		{"postgres://exam:s3cret@db:bad port/x", "postgres://(unparsable URL)"},
		{"host=db user=exam password=s3cret dbname=exams", "host=db user=exam password=xxxxx dbname=exams"},
		{"host=db password = 's3cret with \\' quote' dbname=exams", "host=db password = xxxxx dbname=exams"},
		{"dbname=exams sslpassword=s3cret", "dbname=exams sslpassword=xxxxx"},
	}
	for _, tt := range tests {
		if got := MaskTarget(tt.in); got != tt.want {
			t.Errorf("MaskTarget(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(MaskTarget(tt.in), "s3cret") {
			t.Errorf("MaskTarget(%q) leaks the password", tt.in)
		}
	}
}

// TestOpenURLBadInput: an unreachable server, a wrong password and an unknown scheme each give a
// clear error that never shows the password.
func TestOpenURLBadInput(t *testing.T) {
	srv := pgtest.Shared(t)
	closed := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}()
	tests := []struct {
		name, target string
		want         error
	}{
		{"unreachable", "postgres://exam:s3cret-pw@127.0.0.1:" + strconv.Itoa(closed) + "/x?sslmode=disable&connect_timeout=3", ErrStoreUnreachable},
		{"wrong password", srv.URLWithPassword("postgres", "s3cret-pw"), ErrStoreUnreachable},
		{"unknown scheme", "mysql://exam:s3cret-pw@127.0.0.1/x", ErrInvalidOption},
		{"empty", " ", ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := OpenURL(context.Background(), tt.target)
			if err == nil {
				st.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret-pw") {
				t.Errorf("error shows the password: %v", err)
			}
			t.Log(err)
		})
	}
}

// TestOpenKeywordDSN: a libpq keyword/value connection string opens PostgreSQL (it was taken
// for a data directory named after the password, and a SQLite store made there).
func TestOpenKeywordDSN(t *testing.T) {
	srv := pgtest.Shared(t)
	u, err := url.Parse(pgtest.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	t.Chdir(cwd)
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=%s password='%s' dbname=%s sslmode=disable",
		srv.Port(), u.User.Username(), srv.Password(), strings.TrimPrefix(u.Path, "/"))
	st, err := OpenURL(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Engine() != EnginePostgres {
		t.Fatalf("engine %v, want postgres", st.Engine())
	}
	if strings.Contains(st.Target(), srv.Password()) {
		t.Fatalf("target shows the password: %s", st.Target())
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Fatalf("a data directory was made: %v", entries[0].Name())
	}
	// A wrong password is refused as PostgreSQL's error, never a directory.
	_, err = OpenURL(context.Background(), strings.Replace(dsn, srv.Password(), "s3cret-pw", 1))
	if !errors.Is(err, ErrStoreUnreachable) || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("wrong password: %v", err)
	}
}

// TestSummaryRecovered closes the crash window: the owner stored the terminal exam_state and
// died before exam_completed. After recovery the session has its summary.
func TestSummaryRecovered(t *testing.T) { forEachEngine(t, testSummaryRecovered) }

func testSummaryRecovered(t *testing.T, eng testEngine) {
	ctx := context.Background()
	target := eng.target(t)
	st := openStore(t, target)
	full := examEvents(t, "win00001", fixtureStart)
	cut := full[:len(full)-1]
	if cut[len(cut)-1].Event != runtime.EventExamState || full[len(full)-1].Event != runtime.EventExamCompleted {
		t.Fatal("fixture no longer ends with exam_state, exam_completed")
	}
	sess := recordSession(t, st, "win00001", func(string) []runtime.Event { return cut })
	if sess.Status() != StatusCompleted {
		t.Fatalf("status %v", sess.Status())
	}
	closeStore(t, st)
	st = openStore(t, target)
	defer st.Close()
	sum, err := st.Summary(ctx, "win00001")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Completed == nil {
		t.Fatal("no exam_completed after recovery")
	}
	want := full[len(full)-1]
	c := sum.Completed
	if c.State != runtime.StateCompleted || !strings.HasPrefix(c.Reason, RecoveredReasonPrefix) {
		t.Errorf("recovered completion: state %v reason %q", c.State, c.Reason)
	}
	p, _ := want.Decode()
	orig := p.(*runtime.ExamCompletedPayload)
	if strings.Join(c.NodesVisited, ",") != strings.Join(orig.NodesVisited, ",") {
		t.Errorf("nodes %v, want %v", c.NodesVisited, orig.NodesVisited)
	}
	for k, v := range orig.Evidence {
		if c.Evidence[k] != v {
			t.Errorf("evidence %s = %d, want %d", k, c.Evidence[k], v)
		}
	}
	got, _ := st.Get(ctx, "win00001")
	if got.EventCount != int64(len(full)) || got.Status() != StatusCompleted {
		t.Errorf("after recovery: %d events, status %v", got.EventCount, got.Status())
	}
}

// TestCopySessionsToPostgres copies a data directory into PostgreSQL twice: the second run
// copies nothing, the events are byte-identical, and an interrupted session resumes there.
func TestCopySessionsToPostgres(t *testing.T) {
	ctx := context.Background()
	src := openTestStoreAt(t, t.TempDir())
	recordExam(t, src, "copy0001")
	half := examEvents(t, "copy0002", fixtureStart)[:20]
	recordSession(t, src, "copy0002", func(string) []runtime.Event { return half })
	createSession(t, src, Meta{ID: "copy0003", Exam: testExam()}) // live: not copied
	dst := openTestStoreAt(t, pgtest.NewDB(t))
	res, err := CopySessions(ctx, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Copied) != 2 || len(res.Running) != 1 || len(res.Present) != 0 {
		t.Fatalf("first copy: %+v", res)
	}
	res, err = CopySessions(ctx, src, dst)
	if err != nil || len(res.Copied) != 0 || len(res.Present) != 2 {
		t.Fatalf("second copy: %+v, %v", res, err)
	}
	for _, id := range []string{"copy0001", "copy0002"} {
		a, _ := src.LoadEvents(ctx, id)
		b, err := dst.LoadEvents(ctx, id)
		if err != nil || len(a) != len(b) {
			t.Fatalf("%s: %d vs %d events, %v", id, len(a), len(b), err)
		}
		for i := range a {
			if a[i].Seq != b[i].Seq || a[i].Event != b[i].Event || !a[i].Timestamp.Equal(b[i].Timestamp) || !bytes.Equal(a[i].Payload, b[i].Payload) {
				t.Fatalf("%s seq %d differs after copy", id, a[i].Seq)
			}
		}
		var ea, eb bytes.Buffer
		if err := src.Export(ctx, &ea, id, FormatJSONL, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := dst.Export(ctx, &eb, id, FormatJSONL, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ea.Bytes(), eb.Bytes()) {
			t.Errorf("%s: JSONL exports differ", id)
		}
		sa, _ := src.Get(ctx, id)
		sb, _ := dst.Get(ctx, id)
		if sa.Status() != sb.Status() || sa.Coverage != sb.Coverage || sa.EventCount != sb.EventCount || !sa.StartedAt.Equal(sb.StartedAt) {
			t.Errorf("%s: metadata differs: %+v vs %+v", id, sa, sb)
		}
	}
	j, err := dst.Journal(ctx, "copy0002")
	if err != nil {
		t.Fatalf("resume the copied interrupted session: %v", err)
	}
	if j.NextSeq() != int64(len(half)+1) {
		t.Errorf("next seq %d", j.NextSeq())
	}
	closeJournal(t, j)
}

func openTestStoreAt(t testing.TB, target string) *Store {
	t.Helper()
	st, err := OpenURL(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestPostgresDownMidExam stops the server while a journal writes: the journal fails instead of
// delivering events it could not store, every delivered event is stored, and the session
// resumes from another store once the server is back.
func TestPostgresDownMidExam(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Shared(t)
	target := pgtest.NewDB(t)
	st := openStore(t, target)
	createSession(t, st, Meta{ID: "down0001", Exam: testExam()})
	rec := &recorder{}
	j := openJournal(t, st, "down0001", WithSubscribers(rec))
	evs := manyEvents(t, "down0001", 400)
	publishAll(t, j, evs[:100])
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Failed():
		t.Fatal("Failed closed before anything failed")
	default:
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	restarted := false
	defer func() {
		if !restarted {
			_ = srv.Start(ctx)
		}
	}()
	var failure error
	for _, ev := range evs[100:] {
		if failure = j.Publish(ev); failure != nil {
			break
		}
	}
	if failure == nil {
		failure = j.Flush(ctx)
	}
	if failure == nil {
		t.Fatal("the journal accepted events with the database down")
	}
	t.Logf("journal failure: %v", failure)
	// A driver waiting for input learns of the failure without publishing again.
	select {
	case <-j.Failed():
		if j.Err() == nil {
			t.Error("Failed is closed but Err is nil")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Failed not closed after the commit failed")
	}
	delivered := len(rec.Events())
	_ = j.Close()
	_ = st.Close()

	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	st2 := openStore(t, target)
	defer st2.Close()
	var sess *Session
	testutil.Poll(10*time.Second, func() bool {
		sess = getSession(t, st2, "down0001")
		return sess.Status() == StatusInterrupted
	})
	if sess.Status() != StatusInterrupted && sess.Status() != StatusRunning {
		t.Fatalf("status %v", sess.Status())
	}
	_, stored, err := st2.ResumeData(ctx, "down0001")
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) < delivered {
		t.Fatalf("%d events delivered but only %d stored", delivered, len(stored))
	}
	j2, err := st2.Journal(ctx, "down0001")
	if err != nil {
		t.Fatalf("resume after the database came back: %v", err)
	}
	for _, ev := range evs[len(stored):] {
		if err := j2.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}
	closeJournal(t, j2)
	got, _ := st2.Get(ctx, "down0001")
	if got.EventCount != int64(len(evs)) {
		t.Errorf("after resume %d events, want %d", got.EventCount, len(evs))
	}
}

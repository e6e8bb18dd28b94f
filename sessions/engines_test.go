package sessions

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
)

// testEngine is one backend the store suite runs against: target gives a fresh, empty store
// (a temporary data directory, or a new database on the test binary's PostgreSQL server).
type testEngine struct {
	name   string
	target func(t testing.TB) string
}

var testEngines = []testEngine{
	{"sqlite", func(t testing.TB) string { return t.TempDir() }},
	{"postgres", func(t testing.TB) string { return pgtest.NewDB(t) }},
}

// forEachEngine runs f once per engine, as a subtest named for it.
func forEachEngine(t *testing.T, f func(t *testing.T, eng testEngine)) {
	for _, eng := range testEngines {
		t.Run(eng.name, func(t *testing.T) { f(t, eng) })
	}
}

// open opens a fresh store on the engine, closed when the test ends.
func (e testEngine) open(t testing.TB, opts ...Option) *Store {
	t.Helper()
	st := openStore(t, e.target(t), opts...)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// reopenAfterCrash opens the store after its writer was killed and reads session id. The
// PostgreSQL server releases a killed owner's lease when it notices the connection closed,
// which can take a moment after the process is reaped: a session still seen running is
// re-read for a few seconds before the test believes it.
func reopenAfterCrash(t *testing.T, target, id string) (*Store, *Session, error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := OpenURL(context.Background(), target)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		sess, err := st.Get(context.Background(), id)
		if err != nil || sess.Status() != StatusRunning || time.Now().After(deadline) {
			return st, sess, err
		}
		_ = st.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

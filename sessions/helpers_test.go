package sessions

import (
	"context"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// publishAll publishes evs through j in order, failing the test on the first refusal.
func publishAll(t testing.TB, j *Journal, evs []runtime.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := j.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}
}

// openStore opens the store at target (a data directory or a postgres:// URL), failing the
// test if it cannot; the test closes it (closeStore), often to open it again.
func openStore(t testing.TB, target string, opts ...Option) *Store {
	t.Helper()
	st, err := OpenURL(context.Background(), target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// closeStore closes st, failing the test if it cannot.
func closeStore(t testing.TB, st *Store) {
	t.Helper()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// createSession creates a session in st, failing the test if the store refuses it.
func createSession(t testing.TB, st *Store, m Meta) *Session {
	t.Helper()
	sess, err := st.Create(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// openJournal opens the journal of session id, failing the test if it cannot.
func openJournal(t testing.TB, st *Store, id string, opts ...JournalOption) *Journal {
	t.Helper()
	j, err := st.Journal(context.Background(), id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// closeJournal closes j, failing the test if its last commit or its release fails.
func closeJournal(t testing.TB, j *Journal) {
	t.Helper()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// getSession reads session id back from st, failing the test if it cannot.
func getSession(t testing.TB, st *Store, id string) *Session {
	t.Helper()
	sess, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// loadEvents reads every stored event of session id, failing the test if it cannot.
func loadEvents(t testing.TB, st *Store, id string) []runtime.Event {
	t.Helper()
	evs, err := st.LoadEvents(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

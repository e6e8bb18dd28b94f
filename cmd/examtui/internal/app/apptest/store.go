package apptest

import (
	"context"
	"testing"

	"github.com/examtui/examtui/sessions"
)

// OpenStore opens the session store of the data directory dir, to read back what a test's exam
// (in-process or the binary) stored; it closes with the test.
func OpenStore(t testing.TB, dir string) *sessions.Store {
	t.Helper()
	st, err := sessions.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

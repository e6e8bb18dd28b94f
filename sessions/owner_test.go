package sessions

import (
	"context"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestOwnerAlive: a session is owned while its creator or a journal holds it, from this
// handle or another one on the same directory, and free once they let go.
func TestOwnerAlive(t *testing.T) { forEachEngine(t, testOwnerAlive) }

func testOwnerAlive(t *testing.T, eng testEngine) {
	st := eng.open(t)
	other := openStore(t, st.openTarget, WithRecovery(false))
	defer other.Close()
	sess := createSession(t, st, Meta{Exam: testExam(), Input: runtime.SourceTyped})
	check := func(when string, want bool) {
		t.Helper()
		for _, s := range []*Store{st, other} {
			got, err := s.OwnerAlive(context.Background(), sess.ID)
			if err != nil || got != want {
				t.Errorf("%s: OwnerAlive = %v, %v; want %v", when, got, err, want)
			}
		}
	}
	check("created", true)
	j := openJournal(t, st, sess.ID)
	check("journal open", true)
	closeJournal(t, j)
	check("journal closed", false)
	j2 := openJournal(t, other, sess.ID) // resumed by another handle (another worker)
	check("resumed elsewhere", true)
	closeJournal(t, j2)
	check("released", false)
}

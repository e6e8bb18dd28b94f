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
	ctx := context.Background()
	st := eng.open(t)
	other, err := OpenURL(ctx, st.openTarget, WithRecovery(false))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	sess, err := st.Create(ctx, Meta{Exam: testExam(), Input: runtime.SourceTyped})
	if err != nil {
		t.Fatal(err)
	}
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
	j, err := st.Journal(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("journal open", true)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	check("journal closed", false)
	j2, err := other.Journal(ctx, sess.ID) // resumed by another handle (another worker)
	if err != nil {
		t.Fatal(err)
	}
	check("resumed elsewhere", true)
	if err := j2.Close(); err != nil {
		t.Fatal(err)
	}
	check("released", false)
}

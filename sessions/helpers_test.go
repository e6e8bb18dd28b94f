package sessions

import (
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

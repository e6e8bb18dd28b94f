package sessions_test

import (
	"context"
	"os/user"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
)

// TestIdentity: the store names its user itself: the connected PostgreSQL role, or the
// operating-system account on SQLite.
func TestIdentity(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		st, err := sessions.OpenURL(context.Background(), target)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		who, err := st.Identity(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := pgtest.User // the superuser pgtest initialises its servers with
		if st.Engine() == sessions.EngineSQLite {
			u, err := user.Current()
			if err != nil {
				t.Fatal(err)
			}
			want = u.Username
		}
		if who != want {
			t.Fatalf("identity %q, want %q", who, want)
		}
		if strings.TrimSpace(who) == "" {
			t.Fatal("empty identity")
		}
	})
}

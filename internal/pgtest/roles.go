package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
)

// LoginRole makes sure the test server has a plain LOGIN role called name (no superuser, no
// CREATEDB, no grants: what an institution's DBA creates for a person) and returns dbURL as
// that role. Roles are the server's, shared by its databases; the password is the server's
// superuser password, which a role only ever uses on this throw-away server.
func LoginRole(t testing.TB, dbURL, name string) string {
	t.Helper()
	s := Shared(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// CREATE ROLE has no IF NOT EXISTS; tests run in parallel binaries but one server each.
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'`, pgx.Identifier{name}.Sanitize(), s.password)); err != nil {
			t.Fatalf("create role %s: %v", name, err)
		}
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(name, s.password)
	return u.String()
}

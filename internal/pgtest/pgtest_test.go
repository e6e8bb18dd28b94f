package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestServerLifecycle(t *testing.T) {
	ctx := context.Background()
	s := Shared(t)
	u := NewDB(t)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	var v string
	if err := conn.QueryRow(ctx, `SHOW server_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Logf("server %s on port %d", v, s.Port())
	_ = conn.Close(ctx)

	if c, err := pgx.Connect(ctx, s.URLWithPassword("postgres", "wrong")); err == nil {
		_ = c.Close(ctx)
		t.Fatal("a wrong password was accepted")
	}

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err := pgx.Connect(ctx, u); err == nil {
		_ = c.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	_ = conn.Close(ctx)
	if err := s.DropDB(ctx, u); err != nil {
		t.Fatal(err)
	}
}

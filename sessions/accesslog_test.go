package sessions

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// appendAccesses appends n entries to st's access log, alternating two sessions.
func appendAccesses(t *testing.T, st *Store, n int) {
	t.Helper()
	for i := range n {
		e := AccessEntry{Action: AccessShow, SessionID: fmt.Sprintf("s%d", i%2), Detail: fmt.Sprintf("look %d", i)}
		if err := st.RecordAccess(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAccessLogChainsAndFilters(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st := eng.open(t, WithNow(func() time.Time { return fixtureStart }))
		appendAccesses(t, st, 4)
		who, err := st.Identity(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all, err := st.AccessLog(ctx, AccessFilter{})
		if err != nil || len(all) != 4 {
			t.Fatalf("log = %d entries, %v", len(all), err)
		}
		for i, e := range all {
			if e.Seq != int64(i+1) || e.Who != who || e.From == "" || !e.At.Equal(fixtureStart) || (i > 0 && e.PrevHash != all[i-1].Hash) {
				t.Errorf("entry %d = %+v", i, e)
			}
		}
		if got, _ := st.AccessLog(ctx, AccessFilter{SessionID: "s1"}); len(got) != 2 || got[0].Seq != 2 {
			t.Errorf("filter by session: %+v", got)
		}
		if got, _ := st.AccessLog(ctx, AccessFilter{Who: "nobody"}); len(got) != 0 {
			t.Errorf("filter by who: %+v", got)
		}
		if n, err := st.VerifyAccessLog(ctx); err != nil || n != 4 {
			t.Fatalf("verify = %d, %v", n, err)
		}
	})
}

// TestAccessLogAppendOnly: the store refuses to change or remove an entry; someone who gets
// round the refusal (drops the guard with the file or the owner's role) is found by verify.
func TestAccessLogAppendOnly(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		tamper := []struct {
			name  string
			sql   string
			entry string
		}{
			{"edited", `UPDATE access_log SET detail = 'nothing to see' WHERE seq = 2`, "entry 2 was changed"},
			{"edited who", `UPDATE access_log SET who = 'someone-else' WHERE seq = 3`, "entry 3 was changed"},
			{"removed", `DELETE FROM access_log WHERE seq = 2`, "entry 2 is missing"},
			{"rechained", `UPDATE access_log SET prev_hash = 'x' WHERE seq = 4`, "entry 4 does not follow"},
		}
		for _, tc := range tamper {
			t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
				ctx := context.Background()
				st := eng.open(t)
				appendAccesses(t, st, 5)
				if _, err := st.db.ExecContext(ctx, tc.sql); err == nil || !strings.Contains(err.Error(), "append-only") {
					t.Fatalf("%s through the store: %v, want the append-only refusal", tc.name, err)
				}
				dropGuard(t, st)
				if _, err := st.db.ExecContext(ctx, tc.sql); err != nil {
					t.Fatal(err)
				}
				_, err := st.VerifyAccessLog(ctx)
				if !errors.Is(err, ErrAccessLogBroken) || !strings.Contains(err.Error(), tc.entry) {
					t.Fatalf("verify after the log was %s: %v, want %q", tc.name, err, tc.entry)
				}
			})
		}
	})
}

// dropGuard removes the append-only guard as someone with the database file (SQLite) or the
// table's owner (PostgreSQL) could.
func dropGuard(t *testing.T, st *Store) {
	t.Helper()
	stmts := []string{`DROP TRIGGER access_log_no_update`, `DROP TRIGGER access_log_no_delete`}
	if st.Engine() == EnginePostgres {
		stmts = []string{`ALTER TABLE access_log DISABLE TRIGGER USER`}
	}
	for _, q := range stmts {
		if _, err := st.db.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccessLogOrdinaryRoleCannotChange: on PostgreSQL a second login role that may read and
// append — even one granted UPDATE and DELETE on every table — can neither change nor remove
// an entry, nor truncate the log, and its own entries name it.
func TestAccessLogOrdinaryRoleCannotChange(t *testing.T) {
	ctx := context.Background()
	target := testEngines[1].target(t)
	owner := openStore(t, target)
	defer closeStore(t, owner)
	appendAccesses(t, owner, 2)
	for _, q := range []string{
		`CREATE ROLE examtui_clerk LOGIN PASSWORD 'clerk-pw'`,
		`GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA public TO examtui_clerk`,
	} {
		if _, err := owner.db.ExecContext(ctx, q); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("examtui_clerk", "clerk-pw")
	clerk := openStore(t, u.String())
	defer closeStore(t, clerk)
	if err := clerk.RecordAccess(ctx, AccessEntry{Action: AccessReplay, SessionID: "s9"}); err != nil {
		t.Fatalf("an ordinary role appends: %v", err)
	}
	for _, q := range []string{
		`UPDATE access_log SET detail = 'edited' WHERE seq = 1`,
		`DELETE FROM access_log WHERE seq = 1`,
		`TRUNCATE access_log`,
		`ALTER TABLE access_log DISABLE TRIGGER USER`,
		`DROP TABLE access_log`,
	} {
		if _, err := clerk.db.ExecContext(ctx, q); err == nil {
			t.Errorf("%s as an ordinary role: allowed", q)
		}
	}
	log, err := clerk.AccessLog(ctx, AccessFilter{Who: "examtui_clerk"})
	if err != nil || len(log) != 1 || log[0].Action != AccessReplay {
		t.Fatalf("clerk's entries = %+v, %v", log, err)
	}
	if n, err := owner.VerifyAccessLog(ctx); err != nil || n != 3 {
		t.Fatalf("verify = %d, %v", n, err)
	}
}

// TestAccessLogConcurrentAppends: entries appended at once from several stores still chain.
func TestAccessLogConcurrentAppends(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		target := eng.target(t)
		var wg sync.WaitGroup
		for range 3 {
			st := openStore(t, target)
			defer closeStore(t, st)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					if err := st.RecordAccess(context.Background(), AccessEntry{Action: AccessWatch, SessionID: fmt.Sprint(i)}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		st := openStore(t, target)
		defer closeStore(t, st)
		if n, err := st.VerifyAccessLog(context.Background()); err != nil || n != 30 {
			t.Fatalf("verify = %d, %v", n, err)
		}
	})
}

package sessions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
)

// TestCopyTablesToPostgres: `sessions migrate` from SQLite to PostgreSQL copies every table's
// rows, not only sessions and events: marks, final marks and locks, the marking and candidate
// rosters, join codes, commands, the access log with its hash chain intact, and a table a
// later schema adds (the list comes from the catalog). A live session's rows wait for it, a
// second run writes nothing, and an access log that diverged is refused.
func TestCopyTablesToPostgres(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := openTestStoreAt(t, dir)
	ada := seedPerson(t, src, dir, "mig-ada-01", "Ada Lovelace", fixtureStart)
	seedPerson(t, src, dir, "mig-tom-02", "Tom Other", fixtureStart.Add(time.Hour))
	if err := src.PutCandidates(ctx, []Candidate{{CandidateID: "s-001", Name: "Ada Lovelace", Email: "ada@example.edu"}}); err != nil {
		t.Fatal(err)
	}
	if err := src.AttachCandidate(ctx, ada.id, "s-001"); err != nil {
		t.Fatal(err)
	}
	if err := src.AddToRoster(ctx, testExam().ID, "marker-a", RoleMarker); err != nil {
		t.Fatal(err)
	}
	if err := src.RecordAccess(ctx, AccessEntry{Action: AccessShow, SessionID: ada.id, Who: "proctor"}); err != nil {
		t.Fatal(err)
	}
	createSession(t, src, Meta{ID: "mig-live-03", Exam: testExam()}) // live: not copied, nor its rows
	if err := src.SetMark(ctx, Mark{SessionID: "mig-live-03", Criterion: "c", Marker: "m", Level: "l", Marks: 1, Justification: "j", At: fixtureStart}); err != nil {
		t.Fatal(err)
	}
	// A table a later schema adds, in both stores: copied because the catalog lists it.
	pg := pgtest.NewDB(t)
	dst := openTestStoreAt(t, pg)
	for _, st := range []*Store{src, dst} {
		if _, err := st.db.ExecContext(ctx, `CREATE TABLE later_table (session_id TEXT NOT NULL, note TEXT NOT NULL, PRIMARY KEY (session_id, note))`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.db.ExecContext(ctx, `INSERT INTO later_table (session_id, note) VALUES (?, ?)`, ada.id, "added later"); err != nil {
		t.Fatal(err)
	}

	res, err := CopySessions(ctx, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Copied) != 2 || len(res.Running) != 1 {
		t.Fatalf("copy: %+v", res)
	}
	for _, table := range []string{"marks", "final_marks", "mark_locks", "exam_roster", "candidates", "access_log", "join_codes", "commands", "later_table"} {
		if res.Tables[table] == 0 {
			t.Errorf("no rows of %s copied: %v", table, res.Tables)
		}
	}
	// Every table but those copied their own way holds the same rows on both sides, but
	// the live session's.
	cols, err := src.tableColumns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for table, cs := range cols {
		if copiedOwnWay[table] != "" {
			continue
		}
		want, got := tableRows(t, src, table, cs), tableRows(t, dst, table, cs)
		want = slices.DeleteFunc(want, func(r string) bool { return slices.Contains(cs, "session_id") && strings.Contains(r, "mig-live-03") })
		if !slices.Equal(want, got) {
			t.Errorf("%s differs after the copy:\nsource      %q\ndestination %q", table, want, got)
		}
	}
	if c, ok, err := dst.CandidateOf(ctx, ada.id); err != nil || !ok || c.Email != "ada@example.edu" {
		t.Errorf("the copied session's candidate: %+v %v %v", c, ok, err)
	}
	if _, err := dst.VerifyAccessLog(ctx); err != nil {
		t.Errorf("the copied access log's chain: %v", err)
	}

	again, err := CopySessions(ctx, src, dst)
	if err != nil || len(again.Tables) != 0 || len(again.Copied) != 0 {
		t.Fatalf("second copy: %+v, %v: want nothing written", again, err)
	}

	// The destination's log takes an entry of its own, the source's another: the two
	// chains part at the same place, which cannot be merged.
	if err := dst.RecordAccess(ctx, AccessEntry{Action: AccessShow, SessionID: ada.id, Who: "registrar"}); err != nil {
		t.Fatal(err)
	}
	if err := src.RecordAccess(ctx, AccessEntry{Action: AccessShow, SessionID: ada.id, Who: "proctor"}); err != nil {
		t.Fatal(err)
	}
	if _, err := CopySessions(ctx, src, dst); !errors.Is(err, errAccessLogDiverged) {
		t.Errorf("diverged access logs: %v, want %v", err, errAccessLogDiverged)
	}
}

// tableRows are a table's rows as sorted text, columns in the order given.
func tableRows(t *testing.T, st *Store, table string, cols []string) []string {
	t.Helper()
	sorted := slices.Sorted(slices.Values(cols))
	rows, err := readRows(context.Background(), st.db.QueryContext, "SELECT "+strings.Join(sorted, ", ")+" FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		for i, v := range r {
			if b, ok := v.([]byte); ok {
				r[i] = string(b)
			}
		}
		out = append(out, fmt.Sprint(r...))
	}
	sort.Strings(out)
	return out
}

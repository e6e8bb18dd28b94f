package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// loadV1Fixture builds a data directory holding the v1 store of testdata/store-v1.sql.
func loadV1Fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile("testdata/store-v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMigrateV1(t *testing.T) {
	ctx := context.Background()
	dir := loadV1Fixture(t)

	// Keep the v1 envelopes to compare with what the migrated store gives back.
	raw, err := sql.Open("sqlite", filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	var envelopes []string
	rows, err := raw.Query(`SELECT envelope FROM events WHERE session_id = 'v1done00' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			t.Fatal(err)
		}
		envelopes = append(envelopes, e)
	}
	rows.Close()
	raw.Close()

	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("open v1 store: %v", err)
	}
	defer st.Close()
	var version int
	if err := st.db.QueryRow(`SELECT version FROM schema_version`).Scan(&version); err != nil || version != SchemaVersion {
		t.Fatalf("schema version %d (%v), want %d", version, err, SchemaVersion)
	}

	done := getSession(t, st, "v1done00")
	wantEnd := time.Date(2026, 3, 2, 10, 0, 40, 1_000_000, time.UTC)
	if done.Status() != StatusCompleted || !done.EndedAt.Equal(wantEnd) || done.Candidate != "Sam Roe" ||
		done.SpecPath != "exams/hotel.yaml" || done.EventCount != 10 || done.EvidenceCount != 2 {
		t.Errorf("migrated completed session: %+v", done)
	}
	if done.Coverage < 0.66 || done.Coverage > 0.67 {
		t.Errorf("migrated coverage %v, want 2/3", done.Coverage)
	}
	if _, err := done.Exam(); err != nil {
		t.Errorf("migrated exam unreadable: %v", err)
	}
	evs := loadEvents(t, st, "v1done00")
	if len(evs) != len(envelopes) {
		t.Fatalf("%d events after migration, want %d", len(evs), len(envelopes))
	}
	for i, ev := range evs {
		got, _ := json.Marshal(ev)
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(envelopes[i]), &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("seq %d changed in migration:\n got %s\nwant %s", i+1, got, envelopes[i])
		}
	}

	// The v1 session that never ended has no live owner: it is interrupted, and resumable.
	live := getSession(t, st, "v1live00")
	if live.Status() != StatusInterrupted || live.EventCount != 4 || !live.StartedAt.Equal(time.Date(2026, 3, 2, 11, 0, 0, 500_000_000, time.UTC)) {
		t.Errorf("migrated unended session: %+v", live)
	}
	if _, evs, err := st.ResumeData(ctx, "v1live00"); err != nil || len(evs) != 4 {
		t.Errorf("resume migrated session: %d events, %v", len(evs), err)
	}
	sum, err := st.Summary(ctx, "v1done00")
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Nodes) != 2 || sum.EvidenceTotal() != 2 {
		t.Errorf("summary of migrated session: %d nodes, %d evidence", len(sum.Nodes), sum.EvidenceTotal())
	}
	closeStore(t, st)
	// Opening again is a no-op.
	st2, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	list, err := st2.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("reopened: %d sessions, %v", len(list), err)
	}
}

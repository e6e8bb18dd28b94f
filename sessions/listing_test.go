package sessions_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// TestWriteList: `sessions list` as a table for people (one cleaned line per session) and as
// JSON rows for programs.
func TestWriteList(t *testing.T) {
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.Local)
	list := []*sessions.Session{
		{ID: "a1", ExamID: "hotel", Title: "Hotel", Candidate: "Ada\x1b[31m  Lovelace\n", StartedAt: at, EndedAt: at.Add(95 * time.Second),
			State: runtime.StateCompleted, EventCount: 61, EvidenceCount: 4, Coverage: 0.5},
		{ID: "b2", ExamID: "", StartedAt: at, State: runtime.StateInProgress, Interrupted: true},
	}
	var tbl bytes.Buffer
	if err := sessions.WriteListTable(&tbl, list); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tbl.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], "Ada[31m Lovelace") ||
		!strings.Contains(lines[1], "2026-11-25 09:00") || !strings.Contains(lines[1], "1m35s") || !strings.Contains(lines[1], "4 (50%)") ||
		!strings.Contains(lines[2], "b2  -") {
		t.Errorf("table:\n%s", tbl.String())
	}
	if strings.ContainsAny(tbl.String(), "\x1b") {
		t.Errorf("control characters in the table: %q", tbl.String())
	}
	var empty bytes.Buffer
	if err := sessions.WriteListTable(&empty, nil); err != nil || empty.String() != "No sessions recorded yet.\n" {
		t.Errorf("empty table %q, %v", empty.String(), err)
	}

	var js bytes.Buffer
	if err := sessions.WriteListJSON(&js, list); err != nil {
		t.Fatal(err)
	}
	var rows []sessions.ListRow
	if err := json.Unmarshal(js.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Candidate != "Ada\x1b[31m  Lovelace\n" || rows[0].Events != 61 || rows[0].DurationSec != 95 ||
		rows[0].EndedAt == "" || rows[1].EndedAt != "" || !rows[1].Interrupted {
		t.Errorf("rows %+v", rows)
	}
	var empties bytes.Buffer
	if err := sessions.WriteListJSON(&empties, nil); err != nil || strings.TrimSpace(empties.String()) != "[]" {
		t.Errorf("empty JSON %q, %v", empties.String(), err)
	}
}

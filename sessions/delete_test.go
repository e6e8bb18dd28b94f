package sessions

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDeleteLeavesNoTrace deletes one of two candidates' sessions and walks every table of the
// store and every file of the data directory: nothing names the deleted session or its
// candidate except the access log's tombstone, and the other candidate's records are whole.
func TestDeleteLeavesNoTrace(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st, dataDir := eng.openRecords(t)
		gone := seedPerson(t, st, dataDir, "del-zelda-0001", "Zelda Quokkaberg", fixtureStart)
		kept := seedPerson(t, st, dataDir, "keep-ivo-0002", "Ivo Brannigan", fixtureStart.Add(time.Hour))

		// Locked marks: refused without force, and the refusal says what would be lost.
		_, err := st.DeleteSession(ctx, gone.id, DeleteRequest{DataDir: dataDir})
		var locked *LockedMarksError
		if !errors.As(err, &locked) || !errors.Is(err, ErrLockedMarks) || locked.Marks != 1 || locked.FinalMarks != 1 {
			t.Fatalf("delete with locked marks: %v, want a LockedMarksError with 1 mark and 1 final mark", err)
		}
		if _, err := st.Get(ctx, gone.id); err != nil {
			t.Fatalf("refused delete removed the session: %v", err)
		}

		logPath := filepath.Join(dataDir, "examtui.log")
		del, err := st.DeleteSession(ctx, gone.id, DeleteRequest{Force: true, Reason: "requested by the candidate", DataDir: dataDir, Logs: []string{logPath}})
		if err != nil {
			t.Fatal(err)
		}
		if del.LogLines != 2 || len(del.Files) == 0 {
			t.Errorf("deleted %d log lines and files %v, want 2 lines and the recordings", del.LogLines, del.Files)
		}
		if st.Engine() == EngineSQLite && !del.Checkpointed {
			t.Error("the write-ahead log was not checkpointed after the delete")
		}
		if left := traces(t, st, dataDir, gone.id, gone.name, gone.phrase, "Quokkaberg"); len(left) > 0 {
			t.Errorf("the deleted session left traces:\n  %s", strings.Join(left, "\n  "))
		}
		// The other candidate's records are whole.
		if left := traces(t, st, dataDir, kept.id, kept.name, kept.phrase); len(left) < 8 {
			t.Errorf("the kept session's records were touched: only %d traces left:\n  %s", len(left), strings.Join(left, "\n  "))
		}
		if ms, err := st.Marks(ctx, kept.id); err != nil || len(ms) != 1 {
			t.Errorf("kept marks = %v, %v", ms, err)
		}

		// The tombstone: id, when, by whom, why.
		log, err := st.AccessLog(ctx, AccessFilter{SessionID: gone.id})
		if err != nil {
			t.Fatal(err)
		}
		who, _ := st.Identity(ctx)
		if len(log) != 1 || log[0].Action != AccessDelete || log[0].Who != who || !strings.Contains(log[0].Detail, "requested by the candidate") ||
			!strings.Contains(log[0].Detail, "forced") {
			t.Fatalf("tombstone = %+v, want one delete entry by %s with the reason", log, who)
		}
		if _, err := st.Get(ctx, gone.id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("get after delete: %v", err)
		}
		if _, err := st.DeleteSession(ctx, gone.id, DeleteRequest{}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second delete: %v, want ErrNotFound", err)
		}
	})
}

// TestDeleteCoversEveryTable: every table the schema holds is either walked by a deletion (it
// has a session_id column), keyed otherwise and named here with the reason it is safe, so a new
// table cannot be forgotten.
func TestDeleteCoversEveryTable(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		st := eng.open(t)
		cols, err := st.tableColumns(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// Tables without a session_id column, and how a deletion deals with them.
		other := map[string]string{
			"sessions":       "the session's own row (id)",
			"exams":          "compiled exams, removed with their last session",
			"join_codes":     "removed by the candidate's display name when no other session is theirs",
			"variant_draws":  "per exam and node tallies: no session id, no person",
			"exam_roster":    "who marks and moderates which exam: no session id, no candidate",
			"candidates":     "the candidate's roster entry, removed by candidate_id with their last session",
			"lti_launches":   "a candidate's launches from an LMS, removed by candidate_id with their last session",
			"lti_links":      "course data: which exam a course's link runs; no session id, no person",
			"schema_version": "the layout version",
		}
		for table, cs := range cols {
			if slices.Contains(cs, "session_id") || other[table] != "" {
				continue
			}
			t.Errorf("table %s has no session_id column and no rule for deleting a session (columns %v)", table, cs)
		}
	})
}

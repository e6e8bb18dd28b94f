package marking

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/sessions"
)

// TestPanelRunInLock: a stored panel run is part of what the lock covers, on both engines:
// a run after the lock is refused, and editing or deleting a run after it makes Verify name it.
func TestPanelRunInLock(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			ctx := context.Background()
			st, db, as := eng.open(t)
			id := record(t, st, "Priya", 0)
			const exam = "hospitality-oral-b2"
			addRoster(t, st, exam, sessions.RoleMarker, "alice")
			alice := as(t, "alice")
			at := time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC)
			run := map[string]any{"sessionId": id, "members": []map[string]any{{"name": "A", "model": "model-a", "endpoint": "http://127.0.0.1:1/v1",
				"calls": []map[string]any{{"round": "first", "promptDigest": "sha256:00", "reply": `{"marks":[]}`}}}}}
			r, err := SavePanelRun(ctx, alice, id, run, at)
			if err != nil {
				t.Fatal(err)
			}
			if r.Seq != 1 || r.RunBy != "alice" {
				t.Fatalf("stored run %+v", r)
			}
			if r2, err := SavePanelRun(ctx, alice, id, run, at.Add(time.Minute)); err != nil || r2.Seq != 2 {
				t.Fatalf("second run %+v: %v", r2, err)
			}
			s, err := Load(ctx, alice, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range s.Exam.Marking.Criteria {
				if _, err := SetMark(ctx, alice, Entry{SessionID: id, Criterion: c.ID, Level: c.Levels[0].Name, Justification: "heard"}, at); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Lock(ctx, alice, id, "", at)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(l.Manifest, "\npanel 2 ") {
				t.Fatalf("the lock's manifest lists no panel run:\n%s", l.Manifest)
			}
			if _, err := SavePanelRun(ctx, alice, id, run, at); !errors.Is(err, sessions.ErrMarksLocked) {
				t.Fatalf("a panel run after the lock: %v, want ErrMarksLocked", err)
			}
			for _, tc := range []struct{ sql, want string }{
				{`UPDATE panel_runs SET result = '{"members":[]}' WHERE seq = 1`, "the model panel's run 1 changed"},
				{`DELETE FROM panel_runs WHERE seq = 2`, "the model panel's run 2 removed"},
			} {
				if _, err := db.ExecContext(ctx, tc.sql); err != nil {
					t.Fatal(err)
				}
				v, err := Verify(ctx, st, id)
				if err != nil {
					t.Fatal(err)
				}
				if v.OK() || !slices.Contains(v.Changes, tc.want) {
					t.Errorf("after %q: verify %v, want %q", tc.sql, v.Changes, tc.want)
				}
			}
		})
	}
}

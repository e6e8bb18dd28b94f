package marking

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// doubleMarking is a scheme that needs two markers, one level of tolerance.
func doubleMarking(m *spec.CompiledMarking) {
	m.Markers = 2
	m.Moderation = &spec.CompiledModeration{Tolerance: 1, Settle: spec.SettleLower}
}

// psql runs one statement with the real psql client as the role in url and returns its
// output, or its error output when it fails.
func psql(t *testing.T, url, stmt string) (string, error) {
	t.Helper()
	bin := "psql"
	if dir, err := pgtest.BinDir(); err == nil {
		if p := filepath.Join(dir, "psql"); exec.Command(p, "--version").Run() == nil {
			bin = p
		}
	}
	out, err := exec.Command(bin, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", stmt).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestBlindDoubleMarkingPostgres is double marking on PostgreSQL with plain LOGIN roles that
// no one granted anything by hand: the roster grants them; the marker recorded is the role;
// before marking, the second marker's own psql sees none of the first marker's rows and cannot
// write under her name; a lock without both markers is refused; a moderator who marked the
// session cannot adjudicate it, through examtui or psql; another moderator can, and locks.
func TestBlindDoubleMarkingPostgres(t *testing.T) {
	ctx := context.Background()
	u := pgtest.NewDB(t)
	owner := openAs(t, u)
	id := record(t, owner, "Priya", 0, doubleMarking)
	const exam = "hospitality-oral-b2"
	anaURL, benURL, miaURL := pgtest.LoginRole(t, u, "ana"), pgtest.LoginRole(t, u, "ben"), pgtest.LoginRole(t, u, "mia")
	// Before the roster, the role has no access, and says so (it never tries to create tables).
	if _, err := sessions.OpenURL(ctx, benURL); !errors.Is(err, sessions.ErrNoAccess) {
		t.Fatalf("open as a role not on any roster: %v", err)
	}
	addRoster(t, owner, exam, sessions.RoleMarker, "ana", "ben")
	addRoster(t, owner, exam, sessions.RoleModerator, "ana", "mia")
	ana, ben, mia := openAs(t, anaURL), openAs(t, benURL), openAs(t, miaURL)

	// Exactly what marking needs.
	for stmt, want := range map[string]string{
		`SELECT has_table_privilege('ben', 'marks', 'INSERT')`:       "t",
		`SELECT has_table_privilege('ben', 'marks', 'DELETE')`:       "f",
		`SELECT has_table_privilege('ben', 'sessions', 'UPDATE')`:    "f",
		`SELECT has_table_privilege('ben', 'join_codes', 'SELECT')`:  "f",
		`SELECT has_table_privilege('ben', 'exam_roster', 'INSERT')`: "f",
		`SELECT has_schema_privilege('ben', 'public', 'CREATE')`:     "f",
	} {
		if got, err := psql(t, u, stmt); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %s", stmt, got, err, want)
		}
	}

	at := time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC)
	levels := map[string]string{"options": "description", "clientele": "description", "resources": "evaluation", "communication": "none"}
	for c, l := range levels {
		if _, err := SetMark(ctx, ana, Entry{SessionID: id, Criterion: c, Level: l, Justification: "as heard"}, at); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := psql(t, u, `SELECT DISTINCT marker FROM marks`); err != nil || got != "ana" {
		t.Errorf("marker recorded: %q, %v; want the role ana", got, err)
	}
	// Ben, before marking: his psql sees nothing of Ana's, and cannot write as her.
	for _, q := range []string{`SELECT COUNT(*) FROM marks`, `SELECT COUNT(*) FROM final_marks`} {
		if got, err := psql(t, benURL, q); err != nil || got != "0" {
			t.Errorf("ben's psql %s: %q, %v; want 0", q, got, err)
		}
	}
	if out, err := psql(t, benURL, `INSERT INTO marks VALUES ('`+id+`', 'options', 'ana', 'analysis', 2, 'x', 1)`); err == nil ||
		!strings.Contains(out, "row-level security") {
		t.Errorf("ben writing as ana through psql: %v %s", err, out)
	}
	if _, err := SetMark(ctx, ben, Entry{SessionID: id, Criterion: "options", Level: "analysis", Marker: "ana", Justification: "x"}, at); !errors.Is(err, ErrNotYou) {
		t.Errorf("ben claiming to be ana: %v", err)
	}
	v, err := Show(ctx, ben, id, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Criteria {
		if len(c.Others) != 0 || c.Final != nil || c.Hidden != 1 {
			t.Errorf("ben's blind view of %s: %+v", c.Criterion, c)
		}
	}
	if _, err := Lock(ctx, mia, id, "", at); !errors.Is(err, ErrTooFewMarkers) {
		t.Errorf("lock with one of two markers: %v", err)
	}

	// Ben marks: options two levels apart (beyond the tolerance), the rest agreed.
	ben2 := map[string]string{"options": "evaluation", "clientele": "description", "resources": "evaluation", "communication": "none"}
	for c, l := range ben2 {
		if _, err := SetMark(ctx, ben, Entry{SessionID: id, Criterion: c, Level: l, Justification: "as heard"}, at); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := psql(t, benURL, `SELECT COUNT(*) FROM marks`); err != nil || got != "8" {
		t.Errorf("ben's psql after marking: %q, %v; want 8 rows", got, err)
	}
	if _, err := Lock(ctx, mia, id, "", at); !errors.Is(err, ErrNoFinalLevel) {
		t.Errorf("lock with a disagreement beyond tolerance: %v", err)
	}
	if _, err := Adjudicate(ctx, ana, Entry{SessionID: id, Criterion: "options", Level: "analysis", Justification: "mine"}, at); !errors.Is(err, ErrOwnSession) {
		t.Errorf("ana adjudicating a session she marked: %v", err)
	}
	if out, err := psql(t, anaURL, `INSERT INTO final_marks VALUES ('`+id+`', 'options', 'ana', 'analysis', 2, 'x', 1)`); err == nil {
		t.Errorf("ana adjudicating her own session through psql: %s", out)
	}
	if _, err := Lock(ctx, ben, id, "", at); !errors.Is(err, sessions.ErrNotOnRoster) {
		t.Errorf("a marker locking a double-marked session: %v", err)
	}
	if _, err := Adjudicate(ctx, mia, Entry{SessionID: id, Criterion: "options", Level: "analysis", Justification: "weighed"}, at); err != nil {
		t.Fatal(err)
	}
	l, err := Lock(ctx, mia, id, "", at)
	if err != nil || l.Marker != "mia" {
		t.Fatalf("mia's lock: %+v, %v", l, err)
	}
	if got, err := psql(t, u, `SELECT marker FROM mark_locks`); err != nil || got != "mia" {
		t.Errorf("locker recorded: %q, %v", got, err)
	}

	// An older store is the owner's to migrate: a marker's open says so and changes nothing.
	if _, err := psql(t, u, `UPDATE schema_version SET version = 8`); err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.OpenURL(ctx, benURL); !errors.Is(err, sessions.ErrNeedsOwner) {
		t.Errorf("marker opening an older store: %v", err)
	}
	if got, _ := psql(t, u, `SELECT version FROM schema_version`); got != "8" {
		t.Errorf("schema version after a marker's open: %s", got)
	}
}

// TestDoubleMarkingNeedsInstitutionStore: on SQLite an exam needing two markers cannot be
// locked, and the error says why.
func TestDoubleMarkingNeedsInstitutionStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	owner := openAs(t, dir)
	id := record(t, owner, "Priya", 0, doubleMarking)
	at := time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC)
	for _, who := range []string{"ana", "ben"} {
		st := openAs(t, dir, sessions.WithLocalIdentity(who))
		for _, c := range []string{"options", "clientele", "resources", "communication"} {
			if _, err := SetMark(ctx, st, Entry{SessionID: id, Criterion: c, Level: "description", Justification: "j"}, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := Lock(ctx, owner, id, "", at)
	if !errors.Is(err, ErrNeedsInstitutionStore) || !strings.Contains(err.Error(), "institution store") {
		t.Errorf("lock of a double-marked exam on SQLite: %v", err)
	}
}

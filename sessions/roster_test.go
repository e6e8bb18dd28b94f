package sessions

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRosterAndCandidates: the marking roster and the candidate roster on both engines; a
// roster entry is idempotent, removal names a missing entry; candidates are updated by id and
// attached to a session only when the roster holds them.
func TestRosterAndCandidates(t *testing.T) { forEachEngine(t, testRosterAndCandidates) }

func testRosterAndCandidates(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	if eng.name == "postgres" {
		// A roster name is a database role: an unknown one is refused, naming it.
		if err := st.AddToRoster(ctx, "ex", "nobody-here", RoleMarker); !errors.Is(err, ErrUnknownRole) || !strings.Contains(err.Error(), "nobody-here") {
			t.Errorf("unknown role: %v", err)
		}
	}
	me, err := st.Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := st.AddToRoster(ctx, "ex", me, RoleModerator); err != nil {
			t.Fatal(err)
		}
	}
	r, err := st.Roster(ctx, "ex")
	if err != nil || len(r) != 1 || r[0].Name != me || r[0].Role != RoleModerator || r[0].AddedBy != me {
		t.Fatalf("roster %+v, %v", r, err)
	}
	if err := st.RemoveFromRoster(ctx, "ex", me, RoleMarker); !errors.Is(err, ErrNotOnRoster) {
		t.Errorf("removing a role not held: %v", err)
	}
	if err := st.RemoveFromRoster(ctx, "ex", me, RoleModerator); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Roster(ctx, ""); len(r) != 0 {
		t.Errorf("roster after removal: %+v", r)
	}

	id := recordRehearsal(t, st, "Priya")
	if err := st.AttachCandidate(ctx, id, "c1"); !errors.Is(err, ErrNoCandidate) {
		t.Errorf("attach before import: %v", err)
	}
	if err := st.PutCandidates(ctx, []Candidate{{CandidateID: "c1", Name: "Priya"}, {CandidateID: "c2"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutCandidates(ctx, []Candidate{{CandidateID: "c1", Name: "Priya Shah", Email: "p@example.edu"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutCandidates(ctx, []Candidate{{CandidateID: "c3"}, {CandidateID: " "}}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("a candidate without an id: %v", err)
	}
	cs, err := st.Candidates(ctx)
	if err != nil || len(cs) != 2 || cs[0].Name != "Priya Shah" || cs[0].Email != "p@example.edu" {
		t.Fatalf("candidates %+v, %v (c3 must not be stored: the import is whole or nothing)", cs, err)
	}
	if c, ok, err := st.CandidateOf(ctx, id); err != nil || ok || c.CandidateID != "" {
		t.Errorf("candidate of an unattached session: %+v %v %v", c, ok, err)
	}
	if err := st.AttachCandidate(ctx, id, "c1"); err != nil {
		t.Fatal(err)
	}
	if c, ok, err := st.CandidateOf(ctx, id); err != nil || !ok || c.Name != "Priya Shah" {
		t.Errorf("candidate of the session: %+v %v %v", c, ok, err)
	}
}

// TestLocalIdentity: a SQLite store may be told who uses it; PostgreSQL refuses the claim.
func TestLocalIdentity(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		st, err := OpenURL(context.Background(), eng.target(t), WithLocalIdentity("ana"))
		if eng.name == "postgres" {
			if !errors.Is(err, ErrInvalidOption) {
				t.Errorf("local identity on PostgreSQL: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if who, err := st.Identity(context.Background()); err != nil || who != "ana" {
			t.Errorf("identity %q, %v", who, err)
		}
	})
}

// TestParseCandidatesCSV: the roster's columns in any order, all but candidate_id optional;
// every problem refuses the file naming its line.
func TestParseCandidatesCSV(t *testing.T) {
	ok := "\ufeffname, candidate_id ,section\nPriya,c1,B2\nTom,c2,\n"
	cs, err := ParseCandidatesCSV(strings.NewReader(ok))
	if err != nil || len(cs) != 2 || cs[0] != (Candidate{CandidateID: "c1", Name: "Priya", Section: "B2"}) || cs[1].CandidateID != "c2" {
		t.Fatalf("%+v, %v", cs, err)
	}
	for name, c := range map[string]struct{ in, want string }{
		"empty":          {"", "empty file"},
		"unknown column": {"candidate_id,student\nc1,x\n", `line 1: unknown column "student"`},
		"no id column":   {"name\nPriya\n", "no candidate_id column"},
		"column twice":   {"candidate_id,name,name\nc1,a,b\n", `column "name" twice`},
		"row without id": {"candidate_id,name\nc1,a\n,b\n", "line 3: no candidate_id"},
		"id twice":       {"candidate_id\nc1\nc2\nc1\n", `line 4: candidate_id "c1" already on line 2`},
		"short row":      {"candidate_id,name\nc1\n", "line 2: 1 fields"},
	} {
		if _, err := ParseCandidatesCSV(strings.NewReader(c.in)); !errors.Is(err, ErrBadRoster) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// FuzzParseCandidatesCSV: any input is refused with ErrBadRoster or gives candidates that
// each have a non-empty, unique id and no control characters.
func FuzzParseCandidatesCSV(f *testing.F) {
	f.Add("candidate_id,name\nc1,Priya\n")
	f.Add("name,candidate_id\n\"a,b\",c\x07\n")
	f.Fuzz(func(t *testing.T, in string) {
		cs, err := ParseCandidatesCSV(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrBadRoster) {
				t.Fatalf("error not ErrBadRoster: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range cs {
			if c.CandidateID == "" || seen[c.CandidateID] {
				t.Fatalf("bad or repeated id in %+v", cs)
			}
			seen[c.CandidateID] = true
			for _, v := range []string{c.CandidateID, c.Name, c.Email, c.Section} {
				if strings.ContainsAny(v, "\x00\x07\x1b\n") {
					t.Fatalf("control character kept: %q", v)
				}
			}
		}
	})
}

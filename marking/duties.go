package marking

import (
	"context"
	"fmt"
	"slices"

	"github.com/examtui/examtui/sessions"
)

// Separation of duties (docs/marking.md, "Who marks"). Who does a step is the store's
// identity (sessions.Store.Identity: the PostgreSQL role that connected, or the operating-system
// account on SQLite), never a name a flag gives; a name given must be that identity. What they
// may do comes from the exam's roster: with no roster the exam is one person's (every step is
// theirs), with one a step needs its role. On PostgreSQL the store's row-level security makes
// the same rules hold for any client, psql included; these checks give the clear message first.

// Actor is who takes a step of marking, as the store knows them, and their roles in the exam.
type Actor struct {
	Name string
	// Rostered is false when the exam has no roster: then Name may take every step.
	Rostered  bool
	Marker    bool
	Moderator bool
}

// WhoAmI is the store's identity for a step of exam examID; claimed, when not empty, must be it.
func WhoAmI(ctx context.Context, st *sessions.Store, examID, claimed string) (Actor, error) {
	name, err := st.Identity(ctx)
	if err != nil {
		return Actor{}, err
	}
	if claimed != "" && claimed != name {
		return Actor{}, fmt.Errorf("%w: --marker %q, but the store knows you as %q", ErrNotYou, claimed, name)
	}
	roster, err := st.Roster(ctx, examID)
	if err != nil {
		return Actor{}, err
	}
	a := Actor{Name: name, Rostered: len(roster) > 0}
	for _, e := range roster {
		if e.Name == name {
			a.Marker = a.Marker || e.Role == sessions.RoleMarker
			a.Moderator = a.Moderator || e.Role == sessions.RoleModerator
		}
	}
	return a, nil
}

// may reports whether the actor holds role in the exam (anyone may while it has no roster).
func (a Actor) may(role sessions.MarkingRole) bool {
	if !a.Rostered {
		return true
	}
	switch role {
	case sessions.RoleMarker:
		return a.Marker
	case sessions.RoleModerator:
		return a.Moderator
	}
	return false
}

func (a Actor) need(role sessions.MarkingRole, exam string) error {
	if a.may(role) {
		return nil
	}
	return fmt.Errorf("%w: %s is not a %s of %s (examtui marks roster add --exam %s --role %s %s, by the store's owner)",
		sessions.ErrNotOnRoster, a.Name, role, exam, exam, role, a.Name)
}

// markedBy reports whether name gave any level in marks.
func markedBy(marks []sessions.Mark, name string) bool {
	return slices.ContainsFunc(marks, func(m sessions.Mark) bool { return m.Marker == name })
}

// checkLock is who may lock a session and when: the required number of distinct markers on
// every criterion; on SQLite (one person's machine) no double marking at all; the locker a
// moderator, or a marker when one marker is required.
func checkLock(st *sessions.Store, s *Session, a Actor, marks []sessions.Mark) error {
	need := s.Exam.Marking.MarkersNeeded()
	if need > 1 && st.Engine() == sessions.EngineSQLite {
		return fmt.Errorf("lock %s: %w", s.ID, ErrNeedsInstitutionStore)
	}
	if need > 1 || !a.may(sessions.RoleMarker) {
		if err := a.need(sessions.RoleModerator, s.Exam.ID); err != nil {
			return fmt.Errorf("lock %s: %w (a lock of a double-marked session is a moderator's)", s.ID, err)
		}
	}
	var short []string
	for _, c := range s.Exam.Marking.Criteria {
		var by []string
		for _, m := range marks {
			if m.Criterion == c.ID && !slices.Contains(by, m.Marker) {
				by = append(by, m.Marker)
			}
		}
		if len(by) < need {
			short = append(short, fmt.Sprintf("%s (%d of %d)", c.ID, len(by), need))
		}
	}
	if len(short) > 0 {
		return fmt.Errorf("lock %s: %w: %s", s.ID, ErrTooFewMarkers, joinComma(short))
	}
	return nil
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

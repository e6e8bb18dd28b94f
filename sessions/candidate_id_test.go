package sessions

import (
	"context"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

// TestCandidateIDStored: the candidate's roster or LMS id is kept with the session and read
// back by Get and List, on both engines.
func TestCandidateIDStored(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		st := openStore(t, target)
		defer closeStore(t, st)
		createSession(t, st, Meta{ID: "with-id", Exam: testExam(), Candidate: "Ada"})
		if err := st.PutCandidates(context.Background(), []Candidate{{CandidateID: "lti:ab12cd34:learner-7", Name: "Ada"}}); err != nil {
			t.Fatal(err)
		}
		if err := st.AttachCandidate(context.Background(), "with-id", "lti:ab12cd34:learner-7"); err != nil {
			t.Fatal(err)
		}
		createSession(t, st, Meta{ID: "without", Exam: testExam(), Candidate: "Bob"})
		got, err := st.Get(context.Background(), "with-id")
		if err != nil || got.CandidateID != "lti:ab12cd34:learner-7" {
			t.Fatalf("Get: %+v %v", got, err)
		}
		all, err := st.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for _, s := range all {
			ids[s.ID] = s.CandidateID
		}
		if ids["with-id"] != "lti:ab12cd34:learner-7" || ids["without"] != "" {
			t.Fatalf("List: %v", ids)
		}
	})
}

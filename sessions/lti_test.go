package sessions_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
)

func TestLTIRecords(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st, err := sessions.OpenURL(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		now := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
		l := sessions.LTILaunch{CandidateID: "lti:ab12:learner-7", ResourceLink: "rl-1", Issuer: "https://lms", ClientID: "c",
			DeploymentID: "d", Subject: "learner-7", Name: "Ada", Email: "ada@x", Exam: "hotel", Room: "lti-hotel-1",
			ContextID: "course", LineItem: "https://lms/li/1", Memberships: "https://lms/m", Created: now, Updated: now}
		if err := st.RecordLTILaunch(ctx, l); err != nil {
			t.Fatal(err)
		}
		l2 := l
		l2.Name, l2.Room, l2.Updated = "Ada L.", "another-room", now.Add(time.Hour)
		if err := st.RecordLTILaunch(ctx, l2); err != nil {
			t.Fatal(err)
		}
		got, err := st.LTILaunchOf(ctx, l.CandidateID, "rl-1")
		if err != nil || got.Name != "Ada L." || got.Room != "lti-hotel-1" || !got.Created.Equal(now) {
			t.Fatalf("relaunch: %+v %v (want the new name, the first room and time)", got, err)
		}
		if _, err := st.LTILaunchOf(ctx, "nobody", "rl-1"); !errors.Is(err, sessions.ErrNoLTILaunch) {
			t.Fatalf("unknown: %v", err)
		}
		if ls, err := st.LTILaunches(ctx, "lti-hotel-1", ""); err != nil || len(ls) != 1 {
			t.Fatalf("by room: %v %v", ls, err)
		}
		given, max := 7.0, 9.0
		sc := sessions.LTIScore{SessionID: "s1", LineItem: l.LineItem, CandidateID: l.CandidateID, Grading: "Pending", Status: "posted",
			Attempts: 1, Updated: now, NextAttempt: now}
		if err := st.RecordLTIScore(ctx, sc); err != nil {
			t.Fatal(err)
		}
		sc.ScoreGiven, sc.ScoreMaximum, sc.Grading, sc.Attempts, sc.Digest = &given, &max, "FullyGraded", 2, "d1"
		if err := st.RecordLTIScore(ctx, sc); err != nil {
			t.Fatal(err)
		}
		scores, err := st.LTIScores(ctx, "s1")
		if err != nil || len(scores) != 1 || *scores[0].ScoreGiven != 7 || scores[0].Attempts != 2 || scores[0].Grading != "FullyGraded" {
			t.Fatalf("scores %+v %v", scores, err)
		}
	})
}

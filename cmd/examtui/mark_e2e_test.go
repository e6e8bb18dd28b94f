package main

import (
	"context"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/sessions"
)

// TestMarkConsoleInTmux marks the recorded rehearsal with the built binary in a real terminal:
// every criterion levelled and justified with key presses, the evidence jumped to, then read
// back from the store. Another marker's mark is in the store first; the console never shows it.
func TestMarkConsoleInTmux(t *testing.T) {
	bin := examtuiBinary(t)
	dir, id := recordRehearsal(t)
	ctx := context.Background()
	st := apptest.OpenStore(t, dir)
	const secret = "Ben's private reasoning"
	if err := st.SetMark(ctx, sessions.Mark{SessionID: id, Criterion: "options", Marker: "ben", Level: "evaluation", Marks: 3,
		Justification: secret, At: time.Now()}); err != nil {
		t.Fatal(err)
	}

	// On a local store the marker is the operating-system account, whatever a flag says.
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	me := u.Username
	if _, _, err := runCmd(t, "", "--data-dir", dir, "mark", id[:6], "--marker", "ana"); err == nil || !strings.Contains(err.Error(), `store knows you as "`+me+`"`) {
		t.Fatalf("mark --marker ana as %s: %v", me, err)
	}
	tt, stderrPath, rcPath := startInTmux(t, bin, dir, "mark", id[:6])
	tt.waitScreen("open", "examtui mark", "session "+id, "marker "+me, "Criteria 0/4 marked", "Options for the breakfast problem",
		"RULE  description", "seg-0008", "We could open a second buffet line")

	steps := []struct {
		keys  []string
		why   string
		after []string
	}{
		{[]string{"Right"}, "Two options, neither costed.", []string{"saved options: description", "Criteria 1/4 marked"}},
		{[]string{"2"}, "Reads the guests' hurry as the constraint.", []string{"saved clientele: analysis", "Criteria 2/4 marked"}},
		{[]string{"Tab", "Left", "Left"}, "Staffing and cost, not weighed.", []string{"saved resources: analysis", "Criteria 3/4 marked"}},
		{[]string{"1"}, "Clear enough.", []string{"saved communication: description", "Criteria 4/4 · 7/12 pass"}},
	}
	for _, s := range steps {
		tt.keys(s.keys...)
		tt.keys("Enter")
		tt.waitScreen("justification prompt", "justification>")
		tt.typeLine(s.why)
		screen := tt.waitScreen("saved", s.after...)
		if strings.Contains(screen, secret) || strings.Contains(screen, "ben") {
			t.Fatalf("the console shows the other marker's mark:\n%s", screen)
		}
	}
	tt.keys("q")
	waitExitOK(t, rcPath, stderrPath)

	marks, err := st.Marks(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range marks {
		if m.Marker == me {
			got = append(got, m.Criterion+"="+m.Level+": "+m.Justification)
		}
	}
	want := []string{
		"clientele=analysis: Reads the guests' hurry as the constraint.",
		"communication=description: Clear enough.",
		"options=description: Two options, neither costed.",
		"resources=analysis: Staffing and cost, not weighed.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s's marks:\n%s\nwant:\n%s", me, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package controlroom

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// TestArabicInReadingOrder: an Arabic exam's row (the candidate's name, the exam's title, the
// candidate's last line) and its detail are shown in reading order, each cut at its logical end
// ("…" on the left of a right-to-left cell); a bidi override the candidate said is removed
// before display. The golden is the plain screen.
func TestArabicInReadingOrder(t *testing.T) {
	const (
		name  = "سارة أحمد"
		title = "امتحان شفهي — القراءة في العصر الرقمي"
		said  = "في رأيي لا تغني الشاشة عن الكتاب الورقي لأن القراءة على الهاتف أقل تركيزًا."
	)
	b, err := monitor.NewBoard(monitor.Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	start := fixtureNow.Add(-5 * time.Minute)
	s := &sessions.Session{ID: "0000000000a1ab01", Candidate: name, Title: title, Examiner: "offline",
		Input: runtime.SourceTyped, StartedAt: start, State: runtime.StateInProgress}
	e := &exam{id: s.ID}
	e.add(t, start, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, TotalTimeBudgetSec: 900,
		ExamDeadlineAt: start.Add(15 * time.Minute).Format(time.RFC3339Nano)})
	e.add(t, start, &runtime.NodeEnteredPayload{NodeID: "qiraa", Kind: "discussion", TimeBudgetSec: 300,
		Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 3}})
	// U+202E would reverse what follows it on a terminal that applies bidi itself.
	e.add(t, fixtureNow.Add(-20*time.Second), &runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "\u202e" + said, IsFinal: true, Confidence: 0.9})
	s.EventCount, s.LastEventAt = e.seq, latestTime(e.evs)
	b.ApplyUpdate(monitor.Update{Sessions: []*sessions.Session{s}, Events: e.evs})
	b.Tick(fixtureNow)
	m, err := New(b, WithNoColor(true), WithClock(func() time.Time { return fixtureNow }), WithTickInterval(0), WithSince(fixtureNow.Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 16})
	m.keepCursor()
	screen := tui.Plain(m.Render())
	if strings.ContainsRune(screen, '\u202e') {
		t.Errorf("a bidi override reached the screen:\n%s", screen)
	}
	for _, want := range []string{
		visual.Line(name), // the name column, whole
		visual.Line(ansi.Truncate(title, 16, "…")),                    // the title (16 cells), its beginning kept
		"“" + visual.Line(ansi.Truncate(said, 10, "…")) + "”",         // the last line (12 cells at 120), its beginning kept
		visual.Line(name) + " · " + visual.Line(title) + " · session", // the detail's head
		"“" + visual.Line(said) + "”",                                 // the detail's last line, whole
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	requireGolden(t, "arabic_120x16_plain.golden", []byte(screen+"\n"))
}

package controlroom

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/tui"
)

var goldenSizes = []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}}

// TestGoldenList renders the list of 30 exams covering every alert kind, colourless and
// coloured, at three sizes.
func TestGoldenList(t *testing.T) {
	for _, sz := range goldenSizes {
		for _, noColor := range []bool{true, false} {
			kind := "color"
			if noColor {
				kind = "plain"
			}
			t.Run(fmt.Sprintf("%dx%d_%s", sz.w, sz.h, kind), func(t *testing.T) {
				m := fixtureModel(t, 30, sz.w, sz.h, noColor)
				frame := m.Render()
				lines := strings.Split(frame, "\n")
				if len(lines) != sz.h {
					t.Fatalf("frame has %d lines, want %d", len(lines), sz.h)
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w != sz.w {
						t.Fatalf("line %d is %d cells wide, want %d: %q", i, w, sz.w, ansi.Strip(l))
					}
				}
				if noColor && frame != ansi.Strip(frame) && !strings.Contains(frame, "\x1b[7m") && !strings.Contains(frame, "\x1b[1m") {
					t.Errorf("a colourless frame carries colours")
				}
				if !noColor && !strings.Contains(frame, "\x1b[") {
					t.Errorf("a coloured frame carries no colour")
				}
				out := frame
				if noColor {
					out = tui.Plain(frame)
				}
				requireGolden(t, fmt.Sprintf("list_%dx%d_%s.golden", sz.w, sz.h, kind), []byte(out+"\n"))
			})
		}
	}
}

// TestEveryAlertKindShown checks the fixture raises every alert kind on the row meant to, so
// the goldens cover them all.
func TestEveryAlertKindShown(t *testing.T) {
	b := fixtureBoard(t, 12)
	want := map[string]monitor.AlertKind{
		"Alice Martin": monitor.AlertDistress, "Bob Okafor": monitor.AlertAnxiety, "Chen Wei": monitor.AlertOutputFilter,
		"Dara Singh": monitor.AlertLowConfidence, "Eve Laurent": monitor.AlertSilent, "Farid Haddad": monitor.AlertStalled,
		"Grace Kim": monitor.AlertExaminerError, "Hugo Silva": monitor.AlertInterrupted, "Ines Duarte": monitor.AlertOverBudget,
		"Jonas Berg": monitor.AlertAway, "Kemi Adeyemi": monitor.AlertCost,
	}
	live, finished := b.Rows(fixtureNow.Add(-10 * 3600e9))
	seen := map[monitor.AlertKind]bool{}
	for _, r := range append(live, finished...) {
		for _, a := range r.Alerts {
			seen[a.Kind] = true
		}
		k, ok := want[r.Candidate]
		if !ok {
			if len(r.Alerts) != 0 {
				t.Errorf("%s has alerts %v, want none", r.Candidate, r.Alerts)
			}
			continue
		}
		if len(r.Alerts) != 1 || r.Alerts[0].Kind != k {
			t.Errorf("%s has alerts %v, want only %s", r.Candidate, r.Alerts, k)
		}
	}
	for _, w := range b.Waiting() {
		if w.Alert != nil {
			seen[w.Alert.Kind] = true
		}
		if (w.Alert != nil) != (w.Room == "exam-room-41") {
			t.Errorf("room %s waiting %v: alert %v, want one on exam-room-41 only", w.Room, w.Age(fixtureNow), w.Alert)
		}
	}
	for _, k := range monitor.AlertKinds {
		if !seen[k] {
			t.Errorf("no row shows %s", k)
		}
	}
	states := map[monitor.RowState]bool{}
	for _, r := range append(live, finished...) {
		states[r.State] = true
	}
	for _, s := range []monitor.RowState{monitor.RowInProgress, monitor.RowPaused, monitor.RowAwaiting, monitor.RowInterrupted, monitor.RowCompleted} {
		if !states[s] {
			t.Errorf("no row is %s", s)
		}
	}
	if len(finished) != 1 || live[0].Candidate != "Alice Martin" {
		t.Errorf("finished %d, most urgent %q; want 1 and Alice (distress)", len(finished), live[0].Candidate)
	}
}

// TestTinyScreens: any size renders exactly its lines without panicking.
func TestTinyScreens(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{1, 1}, {10, 3}, {30, 8}, {40, 12}, {79, 9}} {
		m := fixtureModel(t, 12, sz.w, sz.h, false)
		lines := strings.Split(m.Render(), "\n")
		if len(lines) != sz.h {
			t.Errorf("%dx%d: %d lines", sz.w, sz.h, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz.w {
				t.Errorf("%dx%d: line %d is %d wide", sz.w, sz.h, i, w)
			}
		}
	}
}

// TestFilterInputStyle: the filter line uses the console's input styles — the prompt in the
// prompt style when coloured, no colour at all under NO_COLOR.
func TestFilterInputStyle(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		m := fixtureModel(t, 12, 120, 40, noColor)
		for _, r := range "/gr" {
			m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		var line string
		for _, l := range strings.Split(m.Render(), "\n") {
			if strings.Contains(ansi.Strip(l), "filter> gr") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("noColor=%v: no filter line on screen", noColor)
		}
		if noColor && strings.Contains(strings.NewReplacer("\x1b[m", "", "\x1b[7m", "", "\x1b[1m", "").Replace(line), "\x1b[") {
			t.Errorf("a colourless filter line carries colours: %q", line)
		}
		if want := m.styles.Prompt.Render("filter> "); !noColor && !strings.Contains(line, want) {
			t.Errorf("the filter prompt is not in the prompt style: %q, want %q in it", line, want)
		}
	}
}

package markconsole_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/tui"
)

// TestGolden renders the console's panes over the recorded rehearsal at three sizes, plain and
// coloured: the first criterion with its first evidence, then a level chosen and justified, then
// the second criterion's second evidence with its turn highlighted in the transcript.
func TestGolden(t *testing.T) {
	st := openStore(t)
	recordRehearsal(t, st, fixtureID, fixtureStart)
	steps := []struct {
		name string
		keys []string
	}{
		{"open", nil},
		{"saved", []string{"right", "enter", "type:Two costed options, weighed against the guests.", "enter"}},
		{"evidence", []string{"down", "tab"}},
		{"editing", []string{"2", "enter", "type:Analyses"}},
	}
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}} {
		for _, noColor := range []bool{true, false} {
			kind := map[bool]string{true: "plain", false: "color"}[noColor]
			t.Run(fmt.Sprintf("%dx%d_%s", sz.w, sz.h, kind), func(t *testing.T) {
				st := openStore(t)
				recordRehearsal(t, st, fixtureID, fixtureStart)
				m := console(t, st, "ana", nil, sz.w, sz.h, noColor)
				for _, step := range steps {
					press(t, m, step.keys...)
					frame := m.Render()
					lines := strings.Split(frame, "\n")
					if len(lines) != sz.h {
						t.Fatalf("%s: %d lines, want %d", step.name, len(lines), sz.h)
					}
					for i, l := range lines {
						if w := ansi.StringWidth(l); w != sz.w {
							t.Fatalf("%s: line %d is %d cells, want %d: %q", step.name, i, w, sz.w, ansi.Strip(l))
						}
					}
					if !noColor && !strings.Contains(frame, "\x1b[") {
						t.Errorf("%s: a coloured frame carries no colour", step.name)
					}
					out := frame
					if noColor {
						out = tui.Plain(frame)
					}
					testutil.Golden(t, filepath.Join("testdata", fmt.Sprintf("%s_%dx%d_%s.golden", step.name, sz.w, sz.h, kind)), []byte(out+"\n"))
				}
			})
		}
	}
}

// TestEveryLevelShown: the detail's levels line wraps rather than cuts, so at every size each
// criterion shows all its levels with their marks, a level never split across two lines, the
// chosen one highlighted.
func TestEveryLevelShown(t *testing.T) {
	st := openStore(t)
	recordRehearsal(t, st, fixtureID, fixtureStart)
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := console(t, st, "ana", nil, sz.w, sz.h, true)
			_, exam := runtimetest.Rehearsal(t)
			for i, c := range exam.Marking.Criteria {
				if i > 0 {
					press(t, m, "down")
				}
				frame := tui.Plain(m.Render())
				for j, l := range append([]spec.CompiledLevel{{Name: spec.NoLevel}}, c.Levels...) {
					want := fmt.Sprintf("%d %s (%d)", j, l.Name, l.Marks)
					if !strings.Contains(frame, want) {
						t.Errorf("%s: level %q not on screen:\n%s", c.ID, want, frame)
					}
				}
			}
		})
	}
}

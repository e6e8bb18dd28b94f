package tui

import (
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestLayoutTiles checks, for many sizes, that panes stay inside the body, never overlap, stack
// under 100 columns, and that every rendered line is exactly as wide as the terminal allows.
func TestLayoutTiles(t *testing.T) {
	cases := []struct {
		w, h    int
		debug   bool
		stacked bool
		panes   int
	}{
		{80, 24, false, true, 4}, {99, 30, false, true, 4}, {100, 30, false, false, 4}, {120, 40, false, false, 4},
		{159, 40, false, false, 4}, {160, 40, false, false, 4}, {200, 60, false, false, 4}, {120, 40, true, false, 2},
		{80, 24, true, true, 3}, {80, 12, false, true, 1}, {60, 10, false, true, 1}, {300, 100, false, false, 4},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dx%d debug=%v", tc.w, tc.h, tc.debug), func(t *testing.T) {
			m := fixtureModel(t, &fakeBackend{}, tc.w, tc.h)
			if tc.debug {
				drive(t, m, ctrl('r'))
			}
			if len(m.rects) != tc.panes {
				t.Fatalf("%d panes laid out, want %d: %v", len(m.rects), tc.panes, m.rects)
			}
			bodyTop, bodyBottom := 1, 1+m.bodyHeight()
			for id, r := range m.rects {
				if r.x < 0 || r.x+r.w > tc.w || r.y < bodyTop || r.y+r.h > bodyBottom || r.h < minPaneRows {
					t.Errorf("%s at %+v is outside the %dx%d body", id, r, tc.w, m.bodyHeight())
				}
				if tc.stacked && (r.x != 0 || r.w != tc.w) {
					t.Errorf("%s at %+v: narrow screens stack full-width panes", id, r)
				}
				for id2, r2 := range m.rects {
					if id != id2 && r.x < r2.x+r2.w && r2.x < r.x+r.w && r.y < r2.y+r2.h && r2.y < r.y+r.h {
						t.Errorf("%s %+v overlaps %s %+v", id, r, id2, r2)
					}
				}
			}
			lines := strings.Split(m.Render(), "\n")
			if len(lines) != tc.h {
				t.Fatalf("%d lines, want %d", len(lines), tc.h)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > tc.w {
					t.Errorf("line %d is %d wide", i, w)
				}
			}
		})
	}
}

// TestResizeReflows: the same session re-wraps when the terminal narrows, and a turn's text
// is still all there.
func TestResizeReflows(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 200, 60)
	wide := Plain(m.Render())
	drive(t, m, tea.WindowSizeMsg{Width: 120, Height: 60})
	narrow := Plain(m.Render())
	if wide == narrow {
		t.Fatal("resize did not change the frame")
	}
	for _, s := range []string{"Candidate [0.34 low]:", "Examiner [intercepted]:", "Candidate (speaking):"} {
		if !strings.Contains(narrow, s) {
			t.Errorf("after resize the screen lacks %q", s)
		}
	}
}

var sgrColour = regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7])[;m]`)

func TestNoColorAndBackground(t *testing.T) {
	build := func(opts ...Option) *Model {
		m, err := New(hotelInfo, &fakeBackend{}, append([]Option{WithEventClock(), WithTickInterval(0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(readJSONL(t, hotelJSONL)...)
		drive(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		return m
	}
	mono := build(WithNoColor(true))
	if frame := mono.Render(); sgrColour.MatchString(frame) {
		t.Errorf("NO_COLOR frame has colour codes: %q", sgrColour.FindString(frame))
	}
	t.Setenv("NO_COLOR", "1")
	if frame := build().Render(); sgrColour.MatchString(frame) {
		t.Error("NO_COLOR in the environment was ignored")
	}
	t.Setenv("NO_COLOR", "")

	colour := build(WithNoColor(false))
	darkFrame := colour.Render()
	if !sgrColour.MatchString(darkFrame) {
		t.Fatal("colour frame has no colour")
	}
	// The terminal answers that its background is white: styles switch to the light palette.
	drive(t, colour, tea.BackgroundColorMsg{Color: color.White})
	if colour.styles.Dark {
		t.Fatal("light background not taken")
	}
	if lightFrame := colour.Render(); lightFrame == darkFrame || ansi.Strip(lightFrame) != ansi.Strip(darkFrame) {
		t.Error("a light background should change colours and nothing else")
	}
	// A background fixed by option is kept.
	fixed := build(WithNoColor(false), WithDarkBackground(true))
	drive(t, fixed, tea.BackgroundColorMsg{Color: color.White})
	if !fixed.styles.Dark {
		t.Error("WithDarkBackground was overridden by the terminal")
	}
}

// TestShortScreenShowsEveryPaneInTurn: a screen too short to stack the panes shows one at a
// time, and tab reaches every one of them.
func TestShortScreenShowsEveryPaneInTurn(t *testing.T) {
	for _, debug := range []bool{false, true} {
		m := fixtureModel(t, &fakeBackend{}, 60, 12)
		want := []string{"Transcript", "Evidence", "Guardrails", "Timers"}
		if debug {
			drive(t, m, press("f2"), press("esc")) // debug on, back to the input line
			want = []string{"Transcript", "Timers", "Debug"}
		}
		var seen []string
		for range len(want) + 1 {
			drive(t, m, press("tab"))
			if m.focus == PaneInput {
				continue
			}
			if len(m.rects) != 1 {
				t.Fatalf("debug=%v: %d panes on a 60x12 screen", debug, len(m.rects))
			}
			screen := Plain(m.Render())
			title := m.focus.String()
			if !strings.Contains(strings.ToLower(strings.Split(screen, "\n")[1]), title) || !strings.Contains(screen, fmt.Sprintf("/%d] ", len(want))) {
				t.Errorf("debug=%v: focus %s but the screen shows:\n%s", debug, title, screen)
			}
			seen = append(seen, strings.ToUpper(title[:1])+title[1:])
		}
		slices.Sort(seen)
		slices.Sort(want)
		if !slices.Equal(seen, want) {
			t.Errorf("debug=%v: tab reached %v, want %v", debug, seen, want)
		}
	}
}

package tui

import (
	"fmt"
	"strings"
	"testing"
)

// TestHelpShowsEveryBinding: however narrow the screen, the help overlay lists every binding,
// moving whole groups down rather than cutting the last ones off.
func TestHelpShowsEveryBinding(t *testing.T) {
	for _, replay := range []bool{false, true} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {100, 30}, {120, 40}, {200, 60}} {
			name := fmt.Sprintf("live_%dx%d", sz.w, sz.h)
			if replay {
				name = fmt.Sprintf("replay_%dx%d", sz.w, sz.h)
			}
			t.Run(name, func(t *testing.T) {
				var m *Model
				if replay {
					m = replayModel(t, &fakeReplayer{speed: 1}, sz.w, sz.h)
				} else {
					m = fixtureModel(t, &fakeBackend{}, sz.w, sz.h)
				}
				drive(t, m, press("f1"))
				screen := Plain(m.Render())
				requireFits(t, m.Render(), sz.w)
				for _, g := range m.fullHelp() {
					for _, b := range g {
						if !b.Enabled() {
							continue // hidden on purpose (the switch-input key without a switcher)
						}
						h := b.Help()
						if !strings.Contains(screen, h.Key) || !strings.Contains(screen, h.Desc) {
							t.Errorf("help lacks %q %q:\n%s", h.Key, h.Desc, screen)
						}
					}
				}
				if sz.w == 80 {
					requireGolden(t, "screen_help_"+name+".golden", []byte(screen+"\n"))
				}
			})
		}
	}
}

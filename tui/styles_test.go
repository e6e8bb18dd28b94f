package tui

import (
	"strings"
	"testing"
)

// TestStylesBubbles: the help and text input styles come with the rest of Styles, colourless
// under NO_COLOR, coloured otherwise, the input prompt from the palette and a steady cursor.
func TestStylesBubbles(t *testing.T) {
	for _, tc := range []struct {
		name          string
		dark, noColor bool
	}{{"dark", true, false}, {"light", false, false}, {"dark no colour", true, true}, {"light no colour", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewStyles(DefaultPalette(), tc.dark, tc.noColor)
			rendered := map[string]string{
				"help key":     st.Help.ShortKey.Render("ctrl+c"),
				"help desc":    st.Help.ShortDesc.Render("quit"),
				"input prompt": st.Input.Focused.Prompt.Render("answer> "),
			}
			for name, s := range rendered {
				if coloured := strings.Contains(s, "38;"); coloured == tc.noColor {
					t.Errorf("%s: coloured %v with noColor %v: %q", name, coloured, tc.noColor, s)
				}
			}
			if st.Input.Cursor.Blink {
				t.Error("the input cursor blinks")
			}
			if got, want := st.Input.Focused.Prompt.Render("p"), st.Prompt.Render("p"); got != want {
				t.Errorf("input prompt %q, want the palette's prompt %q", got, want)
			}
		})
	}
}

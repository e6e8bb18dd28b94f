package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// requireFits fails the test when a line of a rendered frame is wider than the terminal it was
// rendered for, so an overflow a golden file would record fails instead.
func requireFits(t *testing.T, frame string, width int) {
	t.Helper()
	for _, o := range overflows(frame, width) {
		t.Error(o)
	}
}

// overflows lists the lines of frame wider than width. ansi.StringWidth counts display cells:
// a wide character takes two, an escape sequence none (a rune count gets both wrong).
func overflows(frame string, width int) []string {
	var out []string
	for i, l := range strings.Split(strings.TrimSuffix(frame, "\n"), "\n") {
		if w := ansi.StringWidth(l); w > width {
			out = append(out, fmt.Sprintf("line %d is %d cells wide, over the terminal's %d: %q", i+1, w, width, ansi.Strip(l)))
		}
	}
	return out
}

// TestOverflows: the width check measures cells, not bytes or runes.
func TestOverflows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame string
		width int
		over  int // lines too wide
	}{
		{"ascii at the width", "abcd\nab\n", 4, 0},
		{"ascii over", "abcd\nabcde\nabcdef", 4, 2},
		{"escapes take no cells", "\x1b[1;38;2;0;109;143mabcd\x1b[m", 4, 0},
		{"wide runes take two cells", "日本語", 5, 1},
		{"wide runes at the width", "日本語", 6, 0},
		{"emoji with a skin tone", "ab👍🏽", 3, 1},
		{"box drawing is narrow", "┏━━┓", 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := overflows(tc.frame, tc.width); len(got) != tc.over {
				t.Errorf("%d lines over, want %d: %q", len(got), tc.over, got)
			}
		})
	}
}

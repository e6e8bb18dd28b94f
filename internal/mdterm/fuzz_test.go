package mdterm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// FuzzMDRender checks that any input renders without panicking, that plain output
// carries no escape codes the input did not, and that no plain line is wider than the
// width. Inputs with control or wide characters are only checked for panics: their
// cell width is the terminal's business, not ours.
func FuzzMDRender(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("testdata", "report.md")); err == nil {
		f.Add(string(src), 80)
	}
	for _, s := range []string{
		"# T\n\n- **a:** `b`\n\n| A | B |\n|---|:-:|\n| x \\| y | z |",
		"``a ` b`` **x *y* z** _u_ \\_ &lt;",
		"1. one\n22. two\n- - -\n####### seven",
		"|a|\n|-|\n|scenario-hotel-breakfast-and-more|",
		"a|b|c|d|e|f|g|h|i|j|k|l\n-|-|-|-|-|-|-|-|-|-|-|-\n1|2|3|4|5|6|7|8|9|10|11|12",
	} {
		f.Add(s, 12)
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, md string, width int) {
		if width > 400 || width < -10 {
			return
		}
		got := Render(md, width)
		_ = Render(md, width, WithColor(true))
		if !utf8.ValidString(md) || strings.ContainsFunc(md, func(r rune) bool {
			return r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || r >= 0x80 && ansi.StringWidth(string(r)) != 1
		}) {
			return
		}
		if strings.Contains(got, "\x1b") {
			t.Fatalf("plain output has an escape code: %q", got)
		}
		w := width
		if w < minWidth {
			w = DefaultWidth
		}
		for i, l := range strings.Split(got, "\n") {
			if n := ansi.StringWidth(l); n > w {
				t.Fatalf("line %d is %d cells wide, width %d:\n%q\ninput %q", i+1, n, w, l, md)
			}
		}
	})
}

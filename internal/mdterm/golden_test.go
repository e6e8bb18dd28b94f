package mdterm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/testutil"
)

// testdata/report.md is a copy of the examiner's record that sessions.RenderMarkdown
// writes (sessions/testdata/golden/exam.md): every construct `sessions show` uses.
func TestMDGoldenReport(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{80, 120} {
		for _, color := range []bool{false, true} {
			name := fmt.Sprintf("report-%d-%s.golden", width, map[bool]string{false: "plain", true: "color"}[color])
			t.Run(name, func(t *testing.T) {
				got := Render(string(src), width, WithColor(color))
				testutil.Golden(t, filepath.Join("testdata", name), []byte(got))
				for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
					if w := ansi.StringWidth(l); w > width {
						t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, w, width, l)
					}
				}
				hasESC := strings.Contains(got, "\x1b[")
				if hasESC != color {
					t.Errorf("ANSI escapes present = %v, want %v", hasESC, color)
				}
				if color && ansi.Strip(got) == got {
					t.Error("colour output carries no styling")
				}
			})
		}
	}
}

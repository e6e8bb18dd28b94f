package mdterm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/internal/visual"
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

// testdata/report-ar.md is the record of an Arabic oral (sessions show --plain), with a bidi
// override in a candidate's excerpt: on a terminal every Arabic line reads in reading order
// (visual.Line after wrapping: headings, paragraphs, list items, each table cell's lines), the
// override is removed, and English lines keep their styles.
func TestMDGoldenArabicReport(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "report-ar.md"))
	if err != nil {
		t.Fatal(err)
	}
	const title = "امتحان شفهي — القراءة في العصر الرقمي"
	for _, color := range []bool{false, true} {
		name := fmt.Sprintf("report-ar-100-%s.golden", map[bool]string{false: "plain", true: "color"}[color])
		t.Run(name, func(t *testing.T) {
			got := Render(string(src), 100, WithColor(color))
			testutil.Golden(t, filepath.Join("testdata", name), []byte(got))
			if strings.ContainsRune(got, '\u202e') {
				t.Error("a bidi override reached the terminal")
			}
			plain := ansi.Strip(got)
			for _, want := range []string{
				visual.Line(title) + "\n═",
				visual.Line("هل ترون أن القراءة على الشاشات تغني عن الكتاب الورقي؟"),
				visual.Line("منذ 3 سنوات"), // a number inside Arabic inside an English line
			} {
				if !strings.Contains(plain, want) {
					t.Errorf("the report lacks %q:\n%s", want, plain)
				}
			}
			for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if w := ansi.StringWidth(l); w > 100 {
					t.Errorf("line %d is %d cells wide: %q", i+1, w, l)
				}
			}
			if color && !strings.Contains(got, "\x1b[") {
				t.Error("the English lines lost their styles")
			}
		})
	}
}

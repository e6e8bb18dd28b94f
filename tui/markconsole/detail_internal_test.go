package markconsole

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/tui"
)

func TestLevelsLinesHighlightTheChosenLevel(t *testing.T) {
	styles := tui.NewStyles(tui.DefaultPalette(), true, false)
	st := &styles
	c := &spec.CompiledCriterion{ID: "options", Levels: []spec.CompiledLevel{{Name: "description", Marks: 1}, {Name: "analysis", Marks: 2}, {Name: "evaluation", Marks: 3}}}
	lines := levelsLines(st, c, "analysis", 30)
	if len(lines) < 2 {
		t.Fatalf("not wrapped at 30 cells: %q", lines)
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, st.Current.Render("2 analysis (2)")) {
		t.Errorf("the chosen level is not highlighted whole: %q", lines)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 30 {
			t.Errorf("line %q is %d cells", ansi.Strip(l), w)
		}
	}
}

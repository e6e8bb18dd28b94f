package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/internal/visual"
)

// TestConsoleInTmuxArabic: the Arabic oral in a real terminal shows its transcript in reading
// order (each line laid out right to left by the bidi algorithm, visual.Line), and a typed
// answer holding a bidi override is still cleaned of it before it reaches the screen.
func TestConsoleInTmuxArabic(t *testing.T) {
	bin := examtuiBinary(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	tt, stderrPath, rcPath := startInTmux(t, bin, dataDir, "run", "../../examples/oral-ar.yaml", "--examiner", "offline")
	prompt := visual.Line("هل يمكنكم أن تعرّفوا بأنفسكم في بضع جمل؟")
	tt.waitScreen("the Arabic welcome", prompt, visual.Line("امتحان شفهي — القراءة في العصر الرقمي"), "answer>")

	const answer = "مرحبًا، اسمي سارة أحمد وأدرس الأدب العربي في الجامعة."
	tt.typeLine(answer)
	tt.waitScreen("the first answer", "answer sent", visual.Line("موضوعنا اليوم: القراءة في العصر الرقمي."),
		"Candidate: "+visual.Line(answer))
	// U+202E (right-to-left override) would reverse what follows it on a terminal that does bidi.
	tt.typeLine("هل يمكنكم إعادة السؤال من فضلكم؟ \u202eabc")
	screen := tt.waitScreen("the repeat", "command repeat accepted")
	if strings.ContainsRune(screen, '\u202e') {
		t.Errorf("a bidi override reached the screen:\n%s", screen)
	}
	// The golden is the transcript pane's lines holding Arabic, as the terminal shows them
	// (the pane is the first box of each row; the clocks and session id stay out).
	var arabic []string
	for _, l := range strings.Split(screen, "\n") {
		cells := strings.SplitN(l, "│", 3)
		if len(cells) == 3 && strings.ContainsFunc(cells[1], func(r rune) bool { return r >= 0x0600 && r <= 0x06FF }) {
			arabic = append(arabic, strings.TrimRight(cells[1], " "))
		}
	}
	testutil.Golden(t, filepath.Join("testdata", "console-arabic.golden"), []byte(strings.Join(arabic, "\n")+"\n"))

	tt.keys("C-c")
	tt.waitScreen("the quit question", "y")
	tt.keys("y")
	if code := waitExit(t, rcPath); code != 0 && code != 130 {
		t.Logf("exit %d (stderr %s)", code, stderrPath)
	}
}

package eventprint

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/runtime"
)

// TestReadableArabicInReadingOrder: the readable lines of an Arabic exam printed for a
// terminal show the Arabic text in reading order inside the English line (visual.Line), and
// a bidi override is removed before; JSON and lines for a file or a pipe keep the logical order.
func TestReadableArabicInReadingOrder(t *testing.T) {
	at := time.Date(2026, 6, 12, 10, 30, 0, 0, time.UTC)
	payloads := []runtime.Payload{
		&runtime.TranscriptSegmentPayload{Speaker: "examiner", Text: "هل ترون أن القراءة على الشاشات تغني عن الكتاب الورقي؟", IsFinal: true},
		&runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "\u202eفي رأيي لا تغني الشاشة عن الكتاب الورقي (في الغالب) لأن القراءة أقل تركيزًا 3 مرات.", IsFinal: true, Confidence: 0.9},
		&runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "I read it in English.", IsFinal: true},
	}
	var term, file []byte
	for i, p := range payloads {
		ev, err := runtime.NewEvent("0000000000a1ab01", int64(i+1), at, p)
		if err != nil {
			t.Fatal(err)
		}
		if term, err = appendLine(term, ev, false, true); err != nil {
			t.Fatal(err)
		}
		if file, err = appendLine(file, ev, false, false); err != nil {
			t.Fatal(err)
		}
		j, err := appendLine(nil, ev, true, true)
		if err != nil {
			t.Fatal(err)
		}
		if logical, _ := Append(nil, ev, true); !bytes.Equal(j, logical) {
			t.Errorf("JSON changed for a terminal:\n%s\n%s", j, logical)
		}
	}
	if bytes.ContainsRune(term, '\u202e') || bytes.ContainsRune(file, '\u202e') {
		t.Errorf("a bidi override was printed:\n%s", term)
	}
	tl, fl := strings.Split(string(term), "\n"), strings.Split(string(file), "\n")
	for i := range payloads {
		if tl[i] != visual.Line(fl[i]) {
			t.Errorf("line %d for a terminal:\n%s\nwant the file's line in reading order:\n%s", i, tl[i], visual.Line(fl[i]))
		}
	}
	if tl[2] != fl[2] {
		t.Errorf("an English line changed: %q", tl[2])
	}
	if tl[0] == fl[0] {
		t.Errorf("the Arabic line is in logical order on a terminal: %q", tl[0])
	}
	testutil.Golden(t, filepath.Join("testdata", "arabic-terminal.golden"), term)
	if ForTerminal(&bytes.Buffer{}) {
		t.Error("a buffer counts as a terminal")
	}
}

package roomcheck

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/audio"
)

func TestPunctuate(t *testing.T) {
	const line = "We could open a second buffet line, or another way is a grab-and-go counter."
	for _, tc := range []struct{ heard, want string }{
		{"we could open a second buffet line", "We could open a second buffet line,"},
		{"we could open", "We could open"},
		{"we could open a second buffet line or another way is a grab and go counter", line},
		{"we could open a second buffet line or another way is a grab", "we could open a second buffet line or another way is a grab"}, // inside "grab-and-go"
		{"or another way", "or another way"},
		{"", ""},
	} {
		if got := punctuate(tc.heard, line); got != tc.want {
			t.Errorf("punctuate(%q) = %q, want %q", tc.heard, got, tc.want)
		}
	}
}

// FuzzPunctuate: punctuation is all punctuate adds; what it returns is what was heard, or the
// line's first words as written.
func FuzzPunctuate(f *testing.F) {
	f.Add("we could open a second buffet line", "We could open a second buffet line, or another way is a grab-and-go counter.")
	f.Add("hello", "Hello, I'm Priya.")
	f.Fuzz(func(t *testing.T, heard, line string) {
		got := punctuate(heard, line)
		if audio.NormalizeForGrammar(got) != audio.NormalizeForGrammar(heard) {
			t.Fatalf("punctuate(%q, %q) = %q: other words", heard, line, got)
		}
		if got != heard && !strings.HasPrefix(strings.Join(strings.Fields(line), " "), got) {
			t.Fatalf("punctuate(%q, %q) = %q: not the line's first words", heard, line, got)
		}
	})
}

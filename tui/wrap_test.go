package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapPlain(t *testing.T) {
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"the quick brown fox jumps", 10, []string{"the quick", "brown fox", "jumps"}},
		{"  indented first line wraps", 12, []string{"  indented", "first line", "wraps"}},
		{"averyveryverylongword", 8, []string{"averyver", "yverylon", "gword"}},
		{"a averyveryverylongword", 8, []string{"a", "averyver", "yverylon", "gword"}},
		{"two\nparagraphs here", 20, []string{"two", "paragraphs here"}},
		{"", 10, []string{""}},
		{"日本語の文章です", 6, []string{"日本語", "の文章", "です"}},
		// Closing punctuation and small kana stay with what comes before.
		{"ます。です", 6, []string{"ます。", "です"}},
		{"ビュッフェ", 6, []string{"ビュッ", "フェ"}},
		{"mixed 日本語 text", 8, []string{"mixed 日", "本語", "text"}},
		// Control characters never reach the terminal.
		{"red \x1b[31malert\x1b[0m \x07bell\u009b2J\xff", 40, []string{"red [31malert[0m bell2J\uFFFD"}},
		{"tab\tseparated", 20, []string{"tab separated"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q/%d", tc.in, tc.width), func(t *testing.T) {
			if got := wrapPlain(tc.in, tc.width); !slices.Equal(got, tc.want) {
				t.Errorf("wrapPlain = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWrapHanging(t *testing.T) {
	got := wrapHanging("Candidate: one two three four five six", 16, 12)
	want := []string{"Candidate: one", "two three", "four five", "six"}
	if !slices.Equal(got, want) {
		t.Errorf("wrapHanging = %q, want %q", got, want)
	}
}

// FuzzWrapPlain: whatever the text (an LLM's reply, a candidate's input from a room), the
// lines fit the width, carry no control characters, and lose no visible character.
func FuzzWrapPlain(f *testing.F) {
	for _, s := range []string{"the quick brown fox", "日本語の文章です。ビュッフェ", "\x1b]52;c;aGVsbG8=\x07 osc", "👍🏽👨‍👩‍👧 emoji", "\xff\xfe bad utf8", "a\r\nb"} {
		f.Add(s, uint8(10))
	}
	f.Fuzz(func(t *testing.T, s string, w uint8) {
		width := int(w)%120 + 2 // a wide character needs two cells
		lines := wrapPlain(s, width)
		for i, l := range lines {
			if lw := ansi.StringWidth(l); lw > width {
				t.Fatalf("line %d is %d cells, want ≤ %d: %q", i, lw, width, l)
			}
			for _, r := range l {
				if unicode.IsControl(r) {
					t.Fatalf("line %d carries control character %U: %q", i, r, l)
				}
			}
		}
		visible := func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.IsControl(r) || unicode.IsSpace(r) {
					return -1
				}
				return r
			}, strings.ToValidUTF8(s, "\uFFFD"))
		}
		if got, want := visible(strings.Join(lines, "")), visible(s); got != want {
			t.Fatalf("visible text changed:\n got %q\nwant %q", got, want)
		}
	})
}

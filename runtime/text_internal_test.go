package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"héllo wörld", 4, "héll"},
		{"日本語のテキスト", 3, "日本語"},
		{"", 5, ""},
		{"\xff\xfeabc", 2, "\uFFFDa"}, // a run of invalid bytes becomes one replacement rune
	}
	for _, tt := range tests {
		got := TruncateRunes(tt.in, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two? Three!", []string{"One.", "Two?", "Three!"}},
		{"Revenue fell by 1.5% this year. Why?", []string{"Revenue fell by 1.5% this year.", "Why?"}},
		{"No terminator", []string{"No terminator"}},
		{"Wait... what?", []string{"Wait...", "what?"}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"  ", nil},
	}
	for _, tt := range tests {
		if got := SplitSentences(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCompleteSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two", []string{"One."}},
		{"One. Two.", []string{"One."}}, // "Two." may still become "Two.5"
		{"One. Two. ", []string{"One.", "Two."}},
		{"One", nil},
	}
	for _, tt := range tests {
		if got := completeSentences(tt.in); len(got)+len(tt.want) > 0 && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("completeSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatchPhrase(t *testing.T) {
	tests := []struct {
		text, phrase string
		want         bool
	}{
		{"Most guests arrive early", "guests", true},
		{"Most guests arrive early", "guest", true}, // plural of the last word
		{"The costs are high", "cost", true},
		{"We discussed the costume", "cost", false},
		{"We could open a second line", "we could", true},
		{"We, could we?", "we could", true}, // punctuation ignored
		{"I don't know", "dont know", true},
		{"I don’t know", "don't know", true},
		{"staffing levels", "staff", false},
		{"", "staff", false},
	}
	for _, tt := range tests {
		if got := MatchPhrase(tt.text, tt.phrase); got != tt.want {
			t.Errorf("MatchPhrase(%q, %q) = %v, want %v", tt.text, tt.phrase, got, tt.want)
		}
	}
}

func TestSplitToFit(t *testing.T) {
	text := strings.Repeat("This sentence has some words. ", 30)
	parts := splitToFit(text, 100)
	for _, p := range parts {
		if n := utf8.RuneCountInString(p); n > 100 {
			t.Fatalf("part of %d runes > 100: %q", n, p)
		}
		if !strings.HasSuffix(p, ".") {
			t.Fatalf("part not cut at a sentence boundary: %q", p)
		}
	}
	long := strings.Repeat("word ", 100)
	for _, p := range splitToFit(long, 50) {
		if utf8.RuneCountInString(p) > 50 || strings.HasSuffix(p, " ") {
			t.Fatalf("bad word cut %q", p)
		}
	}
}

func jsonValid(b []byte) bool { return json.Valid(b) }

package visual

import (
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"ascii unchanged", "Could you repeat the question?", "Could you repeat the question?"},
		{"latin accents unchanged", "Pouvez-vous répéter la question ?", "Pouvez-vous répéter la question ?"},
		{"arabic word", "سلام", "مالس"},
		{"arabic sentence", "شكرا لكم", "مكل اركش"},
		{"english quoting arabic", "Candidate: شكرا لكم", "Candidate: مكل اركش"},
		{"arabic with a number", "لدي 15 دقيقة", "ةقيقد 15 يدل"},
		{"arabic with latin", "أحب Go كثيرا", "اريثك Go بحأ"},
		{"marks stay on their letter", "شُكْرًا", "ارًكْشُ"},
		{"brackets mirrored", "(نعم)", "(معن)"},
		{"trailing spaces kept at the end", "نعم  ", "معن  "},
		{"hebrew", "שלום", "םולש"},
		{"english quoting arabic with a number", `candidate: "أقل 3 مرات."`, `candidate: "تارم 3 لقأ."`},
		{"english quoting arabic with a time", "at عند 12:30 تماما ok", "at امامت 12:30 دنع ok"},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("%s: Line(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// FuzzLine: display order only moves characters: the same runes (brackets mirrored) in the
// same number of bytes, and left-to-right text is untouched.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"abc", "سلام عليكم", "Candidate: لدي 15 (دقيقة)", "a\u064e", "\u0651", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got := Line(s)
		if len(got) != len(s) || utf8.RuneCountInString(got) != utf8.RuneCountInString(s) {
			t.Fatalf("Line(%q) = %q: length changed", s, got)
		}
		if !hasRTL(s) && got != s {
			t.Fatalf("Line(%q) = %q: left-to-right text changed", s, got)
		}
	})
}

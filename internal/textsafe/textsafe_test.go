package textsafe

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLineAndBlock(t *testing.T) {
	tests := []struct {
		name, in, line, block string
	}{
		{"plain", "Good morning.", "Good morning.", "Good morning."},
		{"escape and osc", "a\x1b]52;c;aGk=\x07b\x1b[2Jc", "a]52;c;aGk=b[2Jc", "a]52;c;aGk=b[2Jc"},
		{"line breaks", "one\r\ntwo\tthree\rfour", "one  two three four", "one\ntwo\tthree\nfour"},
		{"nul del c1", "x\x00y\x7fz\u0085w\u009bv", "xyzwv", "xyzwv"},
		{"bidi", "abc\u202Edef\u2066g\u200Fh", "abcdefgh", "abcdefgh"},
		{"invalid utf8", "a\xffb", "a\uFFFDb", "a\uFFFDb"},
		{"cjk and emoji kept", "日本 🎉", "日本 🎉", "日本 🎉"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := Block(tt.in); got != tt.block {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.block)
			}
			if Unsafe(Line(tt.in)) || Unsafe(Block(tt.in)) {
				t.Errorf("cleaned text still unsafe: %q", tt.in)
			}
		})
	}
}

func TestUnsafe(t *testing.T) {
	for _, s := range []string{"\x1b[31m", "\a", "\u202E", "\x00", "\xff"} {
		if !Unsafe(s) {
			t.Errorf("Unsafe(%q) = false", s)
		}
	}
	for _, s := range []string{"", "plain", "two\nlines\tand tab", "日本"} {
		if Unsafe(s) {
			t.Errorf("Unsafe(%q) = true", s)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "a\x1b]0;t\x07", "\r\n\t", "\u202E\u0085", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, block := Line(s), Block(s)
		if Unsafe(line) || Unsafe(block) || strings.ContainsAny(line, "\n\r\t") || strings.Contains(block, "\r") {
			t.Fatalf("not clean: %q -> %q / %q", s, line, block)
		}
		if !utf8.ValidString(line) || !utf8.ValidString(block) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		if Line(line) != line || Block(block) != block {
			t.Fatalf("not idempotent: %q", s)
		}
	})
}

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain answer", "plain answer"},
		{"\x00\x1b]0;T\x07", ""},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1b[2J\x1b[1;31mred\x1b[0m", "red"},
		{"a\x1bcb", "ab"},
		{"\u202e\u2066 \u200f", " "},
		{"tail\x1b", "tail"},
		{"\x1b[", ""},
	} {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"text":"plain ビュッフェ – €"}`, `{"text":"plain ビュッフェ – €"}`},
		{"{\"text\":\"a \u202eexe\u202c b\"}", `{"text":"a \u202eexe\u202c b"}`},
		{"{\"text\":\"\u2066x\u2069 \u200f\u061c \u009b31m\"}", `{"text":"\u2066x\u2069 \u200f\u061c \u009b31m"}`},
		{"{\"text\":\"del \x7f\"}", `{"text":"del \u007f"}`},
	} {
		got := EscapeJSON([]byte(tc.in))
		if string(got) != tc.want {
			t.Errorf("EscapeJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
		var a, b any
		if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &b); err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("EscapeJSON(%q) changed the value: %v vs %v (%v)", tc.in, a, b, err)
		}
	}
}

// TestCell: names seen in exports: ESC, OSC 52 (a clipboard write), RLO and the formula forms
// a spreadsheet runs (ASCII, full-width, after spaces) come out inert; other text is kept.
func TestCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Ada Lovelace", "Ada Lovelace"},
		{"=1+1", "'=1+1"},
		{" =1+1", "' =1+1"},
		{"\u3000=1+1", "'\u3000=1+1"},
		{"＝1+1", "'＝1+1"},
		{"＋1", "'＋1"},
		{"－1", "'－1"},
		{"＠SUM(A1)", "'＠SUM(A1)"},
		{"+cmd", "'+cmd"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1:A9)", "'@SUM(A1:A9)"},
		{"\t=1+1", "' =1+1"},
		{"\r=1+1", "' =1+1"},
		{"Eve\x1b[31mred", "Evered"},
		{"Eve\x1b]52;c;cm0gLXJmIH4=\x07", "Eve"},
		{"Eve\u202egnp.exe", "Evegnp.exe"},
		{"x=1", "x=1"},
		{"", ""},
	} {
		if got := Cell(tc.in); got != tc.want {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCell: whatever the text, a cell holds nothing Line would change and never starts (after
// spaces) with a formula character unless quoted.
func FuzzCell(f *testing.F) {
	for _, s := range []string{"=1+1", " ＝1", "\x1b]52;c;x\x07=1", "\u202e=1", "@@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Cell(s)
		if Unsafe(c) || strings.ContainsAny(c, "\t\r\n\x1b") {
			t.Fatalf("Cell(%q) = %q: unsafe", s, c)
		}
		if r, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(c, unicode.IsSpace)); strings.ContainsRune("=+-@＝＋－＠", r) {
			t.Fatalf("Cell(%q) = %q: starts a formula", s, c)
		}
	})
}

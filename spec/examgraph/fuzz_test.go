package examgraph

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLabels checks that no author text can end a Mermaid label or a DOT string early.
func FuzzLabels(f *testing.F) {
	for _, s := range []string{`a "quoted" title`, "pipe | and <b>tag</b>", `back\slash "`, "new\nline", "`tick`", "%%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := mermaidText(s)
		if strings.ContainsAny(m, "\"|<>`\n\r") {
			t.Errorf("mermaidText(%q) = %q keeps a delimiter", s, m)
		}
		d := dotString(s)
		inner := d[1 : len(d)-1]
		for i := 0; i < len(inner); i++ {
			switch inner[i] {
			case '\\':
				i++ // an escape: skip what it escapes
				if i >= len(inner) {
					t.Fatalf("dotString(%q) = %s ends in a lone backslash", s, d)
				}
			case '"':
				t.Fatalf("dotString(%q) = %s has an unescaped quote", s, d)
			case '\n', '\r':
				t.Fatalf("dotString(%q) = %s has a raw line break", s, d)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(d) {
			t.Errorf("dotString(%q) is not valid UTF-8", s)
		}
	})
}

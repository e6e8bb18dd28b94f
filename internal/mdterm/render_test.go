package mdterm

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMDRenderPlain(t *testing.T) {
	tests := []struct {
		name  string
		md    string
		width int
		want  string
	}{
		{"empty", "", 40, ""},
		{"h1 underlined", "# Title", 40, "Title\n═════\n"},
		{"h2 underlined", "## Nodes visited", 40, "Nodes visited\n─────────────\n"},
		{"h3 plain text", "### scenario\\_one", 40, "scenario_one\n"},
		{"closing hashes dropped", "## Done ##", 40, "Done\n────\n"},
		{"not a heading without space", "#hashtag", 40, "#hashtag\n"},
		{"paragraph joins lines", "one\ntwo\nthree", 40, "one two three\n"},
		{"paragraph wraps", "the quick brown fox jumps over the lazy dog", 16,
			"the quick brown\nfox jumps over\nthe lazy dog\n"},
		{"long word broken", "abcdefghijklmnopqrstuvwxyz", 10, "abcdefghij\nklmnopqrst\nuvwxyz\n"},
		{"long identifier breaks after hyphen", "scenario-hotel-breakfast", 16, "scenario-hotel-\nbreakfast\n"},
		{"blocks separated by one blank line", "# A\n\n\n\npara", 40, "A\n═\n\npara\n"},
		{"bullet list", "- one\n- two", 40, "• one\n• two\n"},
		{"star and plus bullets", "* one\n+ two", 40, "• one\n• two\n"},
		{"bullet hangs wrapped text", "- alpha beta gamma delta", 13, "• alpha beta\n  gamma delta\n"},
		{"bold label", "- **Session:** `9f3c`", 40, "• Session: 9f3c\n"},
		{"ordered list aligns markers", "1. a\n10. b", 40, " 1. a\n10. b\n"},
		{"lazy continuation joins item", "- one\ncontinued", 40, "• one continued\n"},
		{"thematic break is text", "- - -", 40, "- - -\n"},
		{"inline code keeps content", "run `a*b*c` now", 40, "run a*b*c now\n"},
		{"double backtick code", "``a ` b``", 40, "a ` b\n"},
		{"unclosed backtick literal", "it`s", 40, "it`s\n"},
		{"escapes", `\_x\_ \*y\* \# \[z\] \\ \|`, 40, `_x_ *y* # [z] \ |` + "\n"},
		{"backslash before letter kept", `a\b`, 40, `a\b` + "\n"},
		{"entities", "&lt;b&gt; &amp; &quot;", 40, `<b> & "` + "\n"},
		{"emphasis", "*welcome* and _(STT 0.91)_", 40, "welcome and (STT 0.91)\n"},
		{"intraword underscore literal", "snake_case_name", 40, "snake_case_name\n"},
		{"stray star literal", "5 * 3 = 15", 40, "5 * 3 = 15\n"},
		{"unclosed bold literal", "**open", 40, "**open\n"},
		{"table", "| A | Bee |\n|---|---|\n| 1 | 2 |", 40,
			" A │ Bee\n───┼────\n 1 │ 2\n"},
		{"table without outer pipes", "A | B\n--|--\nx | y", 40, " A │ B\n───┼──\n x │ y\n"},
		{"table escaped pipe", "| A |\n|---|\n| a \\| b |", 40, " A\n──────\n a | b\n"},
		{"table short row padded and long row cut", "| A | B |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |", 40,
			" A │ B\n───┼──\n 1 │\n 1 │ 2\n"},
		{"table alignment", "| L | C | R |\n|:--|:-:|--:|\n| a | b | c |\n| aaa | bbb | ccc |", 40,
			" L   │  C  │   R\n─────┼─────┼────\n a   │  b  │   c\n aaa │ bbb │ ccc\n"},
		{"table inline markup", "| K |\n|---|\n| `x` **y** \\_z |", 40, " K\n───────\n x y _z\n"},
		{"table shrinks widest column", "| At | Text |\n|---|---|\n| 00:01 | one two three four five six |", 20,
			" At    │ Text\n───────┼────────────\n 00:01 │ one two\n       │ three four\n       │ five six\n"},
		{"pipe without delimiter row is text", "a | b\nc | d", 40, "a | b c | d\n"},
		{"list then table", "- x\n| A |\n|---|\n| 1 |", 40, "• x\n\n A\n──\n 1\n"},
		{"crlf", "# T\r\n\r\ntext\r\n", 40, "T\n═\n\ntext\n"},
		{"tiny width falls back to default", "word", 0, "word\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.md, tt.width)
			if got != tt.want {
				t.Errorf("Render(%q, %d)\n got %q\nwant %q", tt.md, tt.width, got, tt.want)
			}
		})
	}
}

func TestMDRenderColor(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []string // substrings that must appear
	}{
		{"h1 bold magenta", "# Title", []string{"\x1b[1;95mTitle"}},
		{"h2 bold cyan", "## Sub", []string{"\x1b[1;96mSub"}},
		{"h3 bold blue", "### Third", []string{"\x1b[1;94mThird"}},
		{"code yellow", "see `id`", []string{"\x1b[93mid\x1b[m"}},
		{"bold", "**Key:** v", []string{"\x1b[1mKey:\x1b[m"}},
		{"italic", "*node*", []string{"\x1b[3mnode\x1b[m"}},
		{"table header bold", "| H |\n|---|\n| v |", []string{"\x1b[1mH\x1b[m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.md, 40, WithColor(true))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Render(%q) = %q, missing %q", tt.md, got, w)
				}
			}
			if plain := Render(tt.md, 40); ansi.Strip(got) != plain {
				t.Errorf("colour output without escapes %q differs from plain output %q", ansi.Strip(got), plain)
			}
		})
	}
}

func TestMDColorFor(t *testing.T) {
	var b strings.Builder
	tests := []struct {
		name string
		env  []string
		want bool
	}{
		{"not a terminal", []string{"TERM=xterm-256color"}, false},
		{"forced", []string{"TERM=xterm-256color", "CLICOLOR_FORCE=1"}, true},
		// TTY_FORCE makes colorprofile treat the builder as a terminal.
		{"terminal", []string{"TERM=xterm-256color", "TTY_FORCE=1"}, true},
		{"terminal with NO_COLOR", []string{"TERM=xterm-256color", "TTY_FORCE=1", "NO_COLOR=1"}, false},
		{"dumb terminal", []string{"TERM=dumb", "TTY_FORCE=1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ColorFor(&b, tt.env); got != tt.want {
				t.Errorf("ColorFor(env %v) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}

func TestMDKindStrings(t *testing.T) {
	for k, want := range map[blockKind]string{blockParagraph: "paragraph", blockHeading: "heading", blockList: "list", blockTable: "table", 9: "blockKind(9)"} {
		if k.String() != want {
			t.Errorf("blockKind(%d).String() = %q, want %q", k, k.String(), want)
		}
	}
	for a, want := range map[align]string{alignLeft: "left", alignCenter: "center", alignRight: "right"} {
		if a.String() != want {
			t.Errorf("align(%d).String() = %q, want %q", a, a.String(), want)
		}
	}
}

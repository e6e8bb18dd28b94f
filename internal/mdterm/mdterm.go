// Package mdterm renders the small Markdown subset of examtui's reports for a terminal.
//
// It exists so that `examtui sessions show` does not link a full Markdown engine and
// syntax highlighter: those packages cost tens of milliseconds of init time in every
// examtui command, including `examtui check`, which must start in under 100 ms.
//
// Supported: ATX headings, paragraphs, bullet and ordered lists, **strong**, *emphasis*,
// `code`, backslash escapes, the HTML entities our writers emit, and GFM pipe tables.
// Anything else is rendered as wrapped paragraph text, never dropped.
package mdterm

import (
	"strings"

	"github.com/examtui/examtui/internal/textsafe"
)

// DefaultWidth is used when Render is given a width too small to lay text out.
const DefaultWidth = 80

// minWidth is the narrowest width Render honours; below it words of a few letters
// would be split into single characters, which helps nobody.
const minWidth = 10

type config struct {
	color bool
}

// Option tunes Render.
type Option func(*config)

// WithColor turns ANSI styling on or off. Render is plain by default so that output
// piped to a file or a non-colour terminal never carries escape codes.
func WithColor(on bool) Option { return func(c *config) { c.color = on } }

// Render lays md out for a terminal width columns wide. The result ends with a newline
// and, without colour, no line is wider than width unless a single table column
// forces it (see renderTable).
func Render(md string, width int, opts ...Option) string {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if width < minWidth {
		width = DefaultWidth
	}
	st := newStyles(c.color)
	var out []string
	// The only escapes in the output are the ones the styles add.
	for _, b := range parseBlocks(textsafe.Block(md)) {
		var s string
		switch b.kind {
		case blockHeading:
			s = renderHeading(b, width, st)
		case blockParagraph:
			s = strings.Join(wrap(parseInline(strings.Join(b.lines, " ")), width, "", "", st), "\n")
		case blockList:
			s = renderList(b, width, st)
		case blockTable:
			s = renderTable(b, width, st)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n\n") + "\n"
}

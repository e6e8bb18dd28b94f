package mdterm

import (
	"strconv"
	"strings"
)

// blockKind says what a block of lines is.
type blockKind uint8

const (
	blockParagraph blockKind = iota
	blockHeading
	blockList
	blockTable
)

func (k blockKind) String() string {
	switch k {
	case blockParagraph:
		return "paragraph"
	case blockHeading:
		return "heading"
	case blockList:
		return "list"
	case blockTable:
		return "table"
	}
	return "blockKind(" + strconv.Itoa(int(k)) + ")"
}

// block is one parsed block. For lists, items holds each item's text and markers its
// bullet ("•" or "3."); for tables, lines holds the raw rows without the delimiter row.
type block struct {
	kind    blockKind
	level   int // heading level
	lines   []string
	items   []string
	markers []string
	aligns  []align
}

func parseBlocks(md string) []block {
	md = strings.ReplaceAll(strings.ReplaceAll(md, "\r\n", "\n"), "\t", "    ")
	lines := strings.Split(md, "\n")
	var out []block
	for i := 0; i < len(lines); {
		line := lines[i]
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			i++
		case headingLevel(t) > 0:
			lv := headingLevel(t)
			text := strings.TrimSpace(t[lv:])
			// An optional closing run of #s is not part of the heading.
			if s := strings.TrimRight(text, "#"); s != text && (s == "" || strings.HasSuffix(s, " ")) {
				text = strings.TrimSpace(s)
			}
			out = append(out, block{kind: blockHeading, level: lv, lines: []string{text}})
			i++
		case i+1 < len(lines) && strings.Contains(t, "|") && isDelimiterRow(lines[i+1]):
			b := block{kind: blockTable, lines: []string{t}, aligns: parseAligns(lines[i+1])}
			i += 2
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" && strings.Contains(lines[i], "|") &&
				headingLevel(strings.TrimSpace(lines[i])) == 0 {
				b.lines = append(b.lines, strings.TrimSpace(lines[i]))
				i++
			}
			out = append(out, b)
		case listMarker(t) != "":
			b := block{kind: blockList}
			for i < len(lines) {
				t := strings.TrimSpace(lines[i])
				if mk := listMarker(t); mk != "" {
					b.markers = append(b.markers, displayMarker(mk))
					b.items = append(b.items, strings.TrimSpace(t[len(mk):]))
					i++
					continue
				}
				// A lazy or indented continuation line belongs to the last item.
				if t != "" && headingLevel(t) == 0 && !startsTable(lines, i) {
					b.items[len(b.items)-1] += " " + t
					i++
					continue
				}
				break
			}
			out = append(out, b)
		default:
			b := block{kind: blockParagraph}
			for i < len(lines) {
				t := strings.TrimSpace(lines[i])
				if t == "" || headingLevel(t) > 0 || listMarker(t) != "" || startsTable(lines, i) {
					break
				}
				b.lines = append(b.lines, t)
				i++
			}
			out = append(out, b)
		}
	}
	return out
}

func startsTable(lines []string, i int) bool {
	return i+1 < len(lines) && strings.Contains(lines[i], "|") && isDelimiterRow(lines[i+1])
}

// headingLevel is the level of an ATX heading line, or 0.
func headingLevel(t string) int {
	n := runLen(t, '#')
	if n == 0 || n > 6 {
		return 0
	}
	if n < len(t) && t[n] != ' ' {
		return 0
	}
	return n
}

// listMarker returns the marker of a list item line including its following space
// ("- ", "12. "), or "".
func listMarker(t string) string {
	if len(t) >= 2 && strings.IndexByte("-*+", t[0]) >= 0 && t[1] == ' ' {
		// "* * *" and "- - -" are thematic breaks, not list items; render them as text.
		if strings.Trim(t, string(t[0])+" ") == "" {
			return ""
		}
		return t[:2]
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' ' {
		return t[:n+2]
	}
	return ""
}

func displayMarker(mk string) string {
	mk = strings.TrimSpace(mk)
	switch mk {
	case "-", "*", "+":
		return "•"
	}
	return mk[:len(mk)-1] + "."
}

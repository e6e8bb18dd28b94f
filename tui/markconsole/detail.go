package markconsole

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/tui"
)

// detailPane shows the selected criterion: its levels, the rule's proposal with the evidence
// it rests on (the selected piece marked ▸), gaps and misconceptions, the panel's levels and
// rationales, and the marker's own mark.
type detailPane struct {
	st            *tui.Styles
	width, height int
}

func (p *detailPane) SetSize(w, h int) { p.width, p.height = w, h }

// detailData is what the pane shows for one criterion.
type detailData struct {
	c        *spec.CompiledCriterion
	rule     *marking.CriterionProposal
	panel    *panel.CriterionResult
	selected int // the selected ref: evidence first, then misconceptions
	level    string
	entry    Entry
	saved    bool
}

// View is every line of the criterion's detail and the line of the selected evidence (-1:
// none); the root sizes the pane to them, within bounds, and scrolls to keep that line in view.
func (p *detailPane) View(d detailData) (_ []string, selLine int) {
	selLine = -1
	st := p.st
	w := max(p.width, 10)
	var out []string
	add := func(first, rest string, text string) {
		lines := strings.Split(ansi.Wrap(text, max(w-max(ansi.StringWidth(first), ansi.StringWidth(rest)), 10), " -"), "\n")
		for i, l := range lines {
			l = visual.Line(l) // right-to-left script in reading order
			if i == 0 {
				out = append(out, first+l)
			} else {
				out = append(out, rest+l)
			}
		}
	}
	c := d.c
	out = append(out, st.StatusValue.Render(textsafe.Line(c.Title))+st.Muted.Render("  "+c.ID+" · signals "+strings.Join(c.Signals, ", ")))
	out = append(out, levelsLines(st, c, d.level, w)...)
	out = append(out, "")

	if r := d.rule; r != nil {
		add(st.Key.Render("RULE  ")+st.Level.Render(r.Level)+st.Muted.Render(fmt.Sprintf(" (%d/%d) ", r.Marks, r.MaxMarks)), "      ", textsafe.Line(r.Reason))
		for i, e := range r.Evidence {
			mark := "  "
			if i == d.selected {
				mark = st.Key.Render("▸ ")
				selLine = len(out)
			}
			head := mark + st.Muted.Render(padRight(e.SegmentID, 8)+" ") + st.Signal.Render(e.Signal) + " " +
				st.Level.Render(orDash(e.Level)) + st.Muted.Render(fmt.Sprintf(" %.2f", e.Confidence))
			switch {
			case !e.Counted:
				head += st.Rejected.Render(" not counted: " + textsafe.Line(e.Note))
			case e.Note != "":
				head += st.Warn.Render(" " + textsafe.Line(e.Note))
			}
			out = append(out, head)
			add("    ", "    ", "“"+textsafe.Line(e.Quote)+"”")
		}
		if len(r.Evidence) == 0 {
			out = append(out, st.Muted.Render("  no evidence"))
		}
		if len(r.Gaps) > 0 {
			add(st.Muted.Render("  never evidenced: "), "    ", strings.Join(r.Gaps, ", "))
		}
		for i, mc := range r.Misconceptions {
			mark := "  "
			if len(r.Evidence)+i == d.selected {
				mark = st.Key.Render("▸ ")
				selLine = len(out)
			}
			add(mark+st.Muted.Render(padRight(mc.SegmentID, 8)+" ")+st.Misconception.Render("misconception "), "        ",
				textsafe.Line(mc.Concept+": "+mc.Misconception))
		}
	}

	if pv := d.panel; pv != nil {
		out = append(out, "")
		head := st.Key.Render("PANEL ") + st.Level.Render(orDash(pv.Proposed))
		if pv.Agreement != nil {
			head += st.Muted.Render(fmt.Sprintf(" · agreement %.2f · spread %d", *pv.Agreement, pv.Spread))
		}
		if pv.Flagged {
			head += st.Warn.Render(" ⚑ " + pv.Why)
		}
		out = append(out, head)
		for _, l := range pv.Levels {
			lvl := l.Level
			if l.Revised() {
				lvl += " (was " + l.FirstLevel + ")"
			}
			add("  "+st.StatusValue.Render(textsafe.Line(l.Member))+" "+st.Level.Render(lvl)+" ", "    ",
				textsafe.Line(l.Rationale)+st.Muted.Render(" ["+strings.Join(l.Segments, ", ")+"]"))
		}
	}

	out = append(out, "")
	yours := st.Key.Render("YOU   ")
	switch {
	case d.level == "":
		out = append(out, yours+st.Muted.Render("no level yet: ←/→ or 0-9, then enter to justify and save"))
	case d.saved && d.entry.Level == d.level:
		add(yours+st.Good.Render(d.level+" ✓ "), "      ", textsafe.Line(d.entry.Justification))
	default:
		out = append(out, yours+st.Warn.Render(d.level+" (unsaved)")+st.Muted.Render(": enter to justify and save"))
	}
	return out, selLine
}

// levelsLines is the criterion's levels, "levels 0 none (0) · 1 description (1) · …", wrapped
// to width with a hanging indent: a level never breaks across lines and the current one is
// highlighted.
func levelsLines(st *tui.Styles, c *spec.CompiledCriterion, current string, width int) []string {
	const nbsp = "\u00a0"
	const head = "levels "
	names := levelNames(c)
	items := make([]string, len(names))
	for i, name := range names {
		items[i] = strings.ReplaceAll(fmt.Sprintf("%d %s (%d)", i, textsafe.Line(name), c.Marks(name)), " ", nbsp)
	}
	cur := ""
	for i, name := range names {
		if name == current {
			cur = items[i]
		}
	}
	text := strings.Join(items, nbsp+"· ")
	var out []string
	for i, l := range tui.WrapHanging(text, max(width-len(head), 1), max(width-len(head), 1)) {
		prefix := st.Muted.Render(head)
		if i > 0 {
			prefix = strings.Repeat(" ", len(head))
		}
		var b strings.Builder
		for j, tok := range strings.Split(l, " ") { // ASCII spaces only: no-break spaces join an item
			if j > 0 {
				b.WriteString(" ")
			}
			item, sep := strings.CutSuffix(tok, nbsp+"·")
			plain := strings.ReplaceAll(item, nbsp, " ")
			if item == cur {
				b.WriteString(st.Current.Render(plain))
			} else {
				b.WriteString(plain)
			}
			if sep {
				b.WriteString(st.Muted.Render(" ·"))
			}
		}
		out = append(out, prefix+b.String())
	}
	return out
}

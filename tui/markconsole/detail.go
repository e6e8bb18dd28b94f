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
	var lv []string
	for i, name := range levelNames(c) {
		s := fmt.Sprintf("%d %s (%d)", i, name, c.Marks(name))
		if name == d.level {
			s = st.Current.Render(s)
		}
		lv = append(lv, s)
	}
	out = append(out, st.Muted.Render("levels ")+strings.Join(lv, st.Muted.Render(" · ")), "")

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

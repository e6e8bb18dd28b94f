package markconsole

import (
	"strconv"
	"strings"

	"github.com/examtui/examtui/tui"
)

// criteriaPane lists the scheme's criteria, one line each: the rule's level, the panel's
// (flagged when dispersed) and the marker's own (✓ once saved).
type criteriaPane struct {
	st            *tui.Styles
	width, height int
}

func (p *criteriaPane) SetSize(w, h int) { p.width, p.height = w, h }

// criterionRow is what one line shows.
type criterionRow struct {
	title, rule, panel, yours, outcome string
	flagged, saved, selected           bool
}

func (p *criteriaPane) View(rows []criterionRow) []string {
	st := p.st
	out := make([]string, 0, len(rows)*3)
	for _, r := range rows {
		mark := "  "
		if r.selected {
			mark = "▸ "
		}
		title := st.StatusValue.Render(r.title)
		if r.selected {
			title = st.Current.Render(r.title)
		}
		out = append(out, mark+title)
		line := "    " + st.Muted.Render("rule  ") + st.Level.Render(orDash(r.rule))
		if r.panel != "" {
			pv := st.Level.Render(r.panel)
			if r.flagged {
				pv = st.Warn.Render(r.panel + " ⚑")
			}
			line += "\n    " + st.Muted.Render("panel ") + pv
		}
		yours := st.Muted.Render("—")
		switch {
		case r.yours != "" && r.saved:
			yours = st.Good.Render(r.yours + " ✓")
		case r.yours != "":
			yours = st.Warn.Render(r.yours + " (unsaved)")
		}
		out = append(out, strings.Split(line, "\n")...)
		out = append(out, "    "+st.Muted.Render("you   ")+yours)
		if r.outcome != "" {
			out = append(out, "    "+st.Muted.Render("→ "+r.outcome))
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

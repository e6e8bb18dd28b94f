package controlroom

import (
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/monitor"
)

// detailLines explains the selected exam: who, where it stands, and every standing alert
// with what it means.
func (m *Model) detailLines(now time.Time, height int) []string {
	st := m.styles
	r := m.board.Row(m.cursor)
	rule := func(title string) string {
		t := "─ " + title + " "
		return st.Border.Render("─") + st.Title.Render(t[len("─"):]) + st.Border.Render(strings.Repeat("─", max(m.width-len([]rune(t)), 0)))
	}
	out := make([]string, 0, height)
	if r == nil {
		out = append(out, rule("no exam selected"))
	} else {
		name := r.Candidate
		if name == "" {
			name = "(no candidate name)"
		}
		// The exam's own text is laid out for display on its own (visual.Line), so an Arabic
		// title reads from its right inside the English line.
		head := fmt.Sprintf("%s · %s · session %s", visual.Line(name), visual.Line(r.Title), r.SessionID)
		if r.Room != "" {
			head += " · room " + r.Room
		}
		out = append(out, rule(head))
		where := fmt.Sprintf(" %s · examiner %s · input %s · started %s", r.State, r.Examiner, r.Input,
			r.StartedAt.Local().Format("15:04:05"))
		if r.NodeID != "" {
			node := r.NodeID
			if r.Variant != "" {
				node += " variant " + r.Variant
			}
			where += fmt.Sprintf(" · node %s (%d/%d) %s · exam %s", node, r.NodeIndex, r.NodeTotal,
				clockText(r.NodeClock(now)), clockText(r.ExamClock(now)))
		}
		out = append(out, where)
		out = append(out, " usage "+usageText(r)+" · cost "+m.board.Cost(r).String())
		if len(r.Alerts) == 0 {
			out = append(out, st.Good.Render(" no alert"))
		}
		for _, a := range r.Alerts {
			badge := st.Warn.Render(pad(a.Kind.Badge(), 8))
			if severe(a.Kind) {
				badge = st.Bad.Render(pad(a.Kind.Badge(), 8))
			}
			line := fmt.Sprintf(" %s %s ", badge, a.At.Local().Format("15:04:05"))
			if a.NodeID != "" {
				line += a.NodeID + ": "
			}
			out = append(out, line+a.Kind.Explain())
			if a.Detail != "" {
				// The cause on its own line, under the explanation, so a narrow screen keeps it.
				out = append(out, st.Muted.Render(strings.Repeat(" ", 19)+visual.Line(a.Detail)))
			}
		}
		if r.LastCandidate != "" && len(out) < height {
			out = append(out, st.Muted.Render(" last line: ")+st.Candidate.Render("“"+visual.Line(r.LastCandidate)+"”"))
		}
	}
	for len(out) < height {
		out = append(out, "")
	}
	if len(out) > height {
		more := len(out) - height + 1
		out = append(out[:height-1], st.Muted.Render(fmt.Sprintf(" … %d more", more)))
	}
	return out
}

func clockText(c monitor.Clock) string {
	if c.Budget <= 0 {
		return fmtDur(c.Elapsed)
	}
	return fmtDur(c.Elapsed) + "/" + fmtDur(c.Budget)
}

// usageText is a row's usage for the detail: the examiner's tokens, then the speech stages'.
func usageText(r *monitor.Row) string {
	u := r.Usage
	if u.Empty() {
		return "no model calls"
	}
	var parts []string
	if len(u.LLM) > 0 {
		s := fmt.Sprintf("%d prompt + %d completion tokens", u.PromptTokens(), u.CompletionTokens())
		if n := u.UnknownTurns(); n > 0 {
			s += fmt.Sprintf(" (%d calls sent no usage)", n)
		}
		if n := u.FailedAttempts(); n > 0 {
			s += fmt.Sprintf(" (+%d failed requests)", n)
		}
		parts = append(parts, s)
	}
	for _, s := range u.SpeechLines() {
		parts = append(parts, textsafe.Line(s))
	}
	return strings.Join(parts, "; ")
}

package sessions

import (
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
)

// MarkdownOptions tune RenderMarkdown.
type MarkdownOptions struct {
	Transcript bool // include the full transcript (the examiner's record); `show` leaves it out
	// Prices is the config file's price table, for the cost; without it the cost is unknown.
	Prices usage.Prices
}

// RenderMarkdown renders a summary as the examiner's record of the exam.
func RenderMarkdown(sum *Summary, opts MarkdownOptions) string {
	var b strings.Builder
	s := sum.Session
	title := s.Title
	if title == "" {
		title = s.ExamID
	}
	fmt.Fprintf(&b, "# %s\n\n", mdText(title))
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "- **%s:** %s\n", k, v)
		}
	}
	row("Session", "`"+s.ID+"`")
	row("Exam", "`"+s.ExamID+"`")
	row("Candidate", mdText(s.Candidate))
	row("Examiner", mdText(s.Examiner))
	row("Input", s.Input.String())
	row("Started", fmtTime(s.StartedAt))
	if !s.EndedAt.IsZero() {
		row("Ended", fmtTime(s.EndedAt))
	}
	row("Duration", fmtDuration(s.Duration()))
	status := s.Status().String()
	if sum.FinalState != "" && string(sum.FinalState) != status {
		status += " (exam state " + sum.FinalState.String() + ")"
	}
	row("Status", status)
	row("Evidence", fmt.Sprintf("%d signals, coverage %s", sum.EvidenceTotal(), pct(s.Coverage)))
	row("Turns", fmt.Sprintf("%d observed (%d invalid)", sum.Turns, sum.Invalid))
	row("Events", fmt.Sprint(s.EventCount))
	row("Usage", mdText(UsageLine(sum.Usage)))
	row("Cost", mdText(CostLine(sum.Usage, opts.Prices)))
	if s.SpecPath != "" {
		row("Spec", "`"+s.SpecPath+"`")
	}
	for _, r := range s.Recordings {
		row("Recording", "`"+r+"`")
	}

	b.WriteString("\n## Nodes visited\n\n")
	if len(sum.Nodes) == 0 {
		b.WriteString("No node was entered.\n")
	} else {
		b.WriteString("| # | Node | Kind | Entered | Time | Exit | Follow-ups | Evidence | Coverage |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		for i, v := range sum.Nodes {
			exit := v.Reason.String()
			if v.ExitedAt.IsZero() {
				exit = "(still here)"
				if !s.EndedAt.IsZero() {
					exit = "(exam ended here)"
				}
			} else if v.Next != "" {
				exit += " → " + v.Next
			}
			elapsed := time.Duration(v.ElapsedMs) * time.Millisecond
			if elapsed == 0 && !v.ExitedAt.IsZero() {
				elapsed = v.ExitedAt.Sub(v.EnteredAt)
			}
			cov := "–"
			if v.Required > 0 || v.Coverage > 0 {
				cov = pct(v.Coverage)
			}
			node := v.NodeID
			if v.Variant != "" {
				node += " (variant " + v.Variant + ")"
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %d | %d | %s |\n", i+1, mdCell(node), mdCell(v.Kind),
				offset(sum.StartedAt, v.EnteredAt), fmtDuration(elapsed), mdCell(exit), v.FollowUps, len(v.Evidence), cov)
		}
	}

	b.WriteString("\n## Evidence\n")
	if sum.EvidenceTotal() == 0 {
		b.WriteString("\nNo evidence was accepted.\n")
	}
	for _, v := range sum.Nodes {
		if len(v.Evidence) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", mdText(v.NodeID))
		b.WriteString("| At | Signal | Level | Confidence | STT min | Excerpt |\n|---|---|---|---|---|---|\n")
		for _, e := range v.Evidence {
			sig := e.SignalType
			if e.Transversal {
				sig += " (transversal)"
			}
			if e.OtherNode {
				sig += " (another part's)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %s |\n", offset(sum.StartedAt, e.At), mdCell(sig),
				mdCell(e.RubricLevel), e.Confidence, e.STT.Min, mdCell(e.Excerpt))
			if e.Misconception != nil {
				fmt.Fprintf(&b, "| | misconception | | | | %s: %s (correction: %s) |\n", mdCell(e.Misconception.Concept),
					mdCell(e.Misconception.Misconception), mdCell(e.Misconception.Correction))
			}
		}
	}
	if counts := sum.SignalCounts(); len(counts) > 0 {
		b.WriteString("\nSignals accepted: ")
		for i, c := range counts {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s ×%d", mdText(c.SignalType), c.Count)
		}
		b.WriteString(".\n")
	}

	writeTableSection(&b, "Guardrails", "No guardrail fired.",
		[]string{"At", "Node", "Guardrail", "Action", "Original", "Replacement"}, sum.Guardrails,
		func(g GuardrailRecord) []string {
			return []string{offset(sum.StartedAt, g.At), mdCell(g.NodeID), mdCell(g.Guardrail),
				mdCell(g.Action.String()), mdCell(g.OriginalText), mdCell(g.ReplacementText)}
		})
	writeTableSection(&b, "Candidate commands", "No command was given.",
		[]string{"At", "Node", "Command", "Source", "Accepted", "Detail"}, sum.Commands,
		func(c CommandRecord) []string {
			return []string{offset(sum.StartedAt, c.At), mdCell(c.NodeID), mdCell(c.Command),
				mdCell(c.Source.String()), yesNo(c.Accepted), mdCell(c.Detail)}
		})
	if len(sum.Admin) > 0 {
		writeTableSection(&b, "Examiner instructions", "",
			[]string{"At", "Node", "Mode", "Sender", "Status", "Text"}, sum.Admin,
			func(a AdminRecord) []string {
				return []string{offset(sum.StartedAt, a.At), mdCell(a.Node), mdCell(a.Mode.String()),
					mdCell(a.Sender), mdCell(a.Status.String()), mdCell(a.Text)}
			})
	}
	writePresence(&b, sum)
	if len(sum.Recoveries) > 0 || len(sum.Errors) > 0 {
		b.WriteString("\n## Recoveries and errors\n\n")
		for _, r := range sum.Recoveries {
			fmt.Fprintf(&b, "- %s recovery `%s` in %s", offset(sum.StartedAt, r.At), r.Kind, mdText(r.NodeID))
			if r.SignalType != "" {
				fmt.Fprintf(&b, " (signal %s)", mdText(r.SignalType))
			}
			if r.Detail != "" {
				fmt.Fprintf(&b, ": %s", mdText(r.Detail))
			}
			b.WriteString("\n")
		}
		for _, e := range sum.Errors {
			fmt.Fprintf(&b, "- %s error `%s`: %s\n", offset(sum.StartedAt, e.At), e.Code, mdText(e.Message))
		}
	}
	if sum.TimeWarns > 0 || sum.Beats > 0 {
		fmt.Fprintf(&b, "\nTime warnings: %d. Pacing beats: %d.\n", sum.TimeWarns, sum.Beats)
	}

	b.WriteString("\n## Latency\n\n")
	l := sum.Latency
	if l.Total.N == 0 && l.LLMComplete.N == 0 {
		b.WriteString("No turn latency was measured.\n")
	} else {
		b.WriteString("| Stage | Turns | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|\n")
		for _, st := range []struct {
			name string
			f    Figure
		}{{"endpointing", l.EndpointingMs}, {"speech to text", l.STT}, {"LLM first token", l.LLMFirstToken},
			{"LLM complete", l.LLMComplete}, {"filters", l.Filters}, {"TTS first byte", l.TTSFirstByte}, {"total", l.Total}} {
			if st.f.N == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.0f |\n", st.name, st.f.N, st.f.P50, st.f.P95, st.f.Max)
		}
	}

	if opts.Transcript {
		b.WriteString("\n## Transcript\n\n")
		if len(sum.Transcript) == 0 {
			b.WriteString("Nothing was said.\n")
		}
		node := ""
		for i, t := range sum.Transcript {
			if t.NodeID != "" && t.NodeID != node {
				node = t.NodeID
				if i > 0 {
					b.WriteString("\n") // end the list, or the node name joins its last item
				}
				fmt.Fprintf(&b, "*%s*\n\n", mdText(node))
			}
			who := "Examiner"
			if t.Speaker == runtime.SpeakerCandidate {
				who = "Candidate"
			}
			fmt.Fprintf(&b, "- `%s` **%s:** %s", offset(sum.StartedAt, t.At), who, mdText(t.Text))
			if t.Speaker == runtime.SpeakerCandidate && t.Confidence > 0 && t.Confidence < 1 {
				fmt.Fprintf(&b, " _(STT %.2f)_", t.Confidence)
			}
			b.WriteString("\n")
		}
	}
	// Identifiers and codes are written raw inside code spans; the whole record goes through the
	// one cleaning function as well, so nothing a terminal obeys survives.
	return textsafe.Block(b.String())
}

// writeTableSection writes a "## title" section: items as a Markdown table (head, then one
// row of cells per item, each cell already made inert), or the line none when there are none.
func writeTableSection[T any](b *strings.Builder, title, none string, head []string, items []T, cells func(T) []string) {
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if len(items) == 0 {
		b.WriteString(none + "\n")
		return
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
	for _, it := range items {
		b.WriteString("| " + strings.Join(cells(it), " | ") + " |\n")
	}
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func fmtDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	}
	return fmt.Sprintf("%dm%02ds", m, s)
}

// offset is a time relative to the session's first event, as mm:ss.
func offset(start, t time.Time) string {
	if start.IsZero() || t.IsZero() {
		return "–"
	}
	d := t.Sub(start).Round(time.Second)
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "#", `\#`)

// mdText makes candidate- or LLM-written text inert in Markdown and keeps it on one line;
// control characters and terminal escapes are dropped (textsafe.Line).
func mdText(s string) string {
	return mdEscaper.Replace(strings.Join(strings.Fields(textsafe.Line(s)), " "))
}

func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

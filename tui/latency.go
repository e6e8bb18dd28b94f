package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/runtime"
)

// dashboardMinTurns is how many lines of turns the Debug pane keeps below its dashboard; with
// less room the dashboard shrinks to one line, then goes.
const dashboardMinTurns = 6

// stageNames are the dashboard's rows, in pipeline order, then the turn's total.
var stageNames = []string{"endpoint", "stt", "llm-first", "llm", "filters", "tts-first", "total"}

// latencyStats keeps every measured value per stage, so the dashboard can show percentiles
// like a tail dashboard. Summaries are computed once per new turn, not per frame.
type latencyStats struct {
	values  [][]float64 // per stage (stageNames order); unmeasured turns are left out
	last    []float64   // the latest turn's values, zero when not measured
	turns   int
	summary []stageSummary // nil when stale
}

type stageSummary struct {
	name                string
	n                   int
	last, p50, p95, max float64
}

func (s *latencyStats) add(l runtime.Latency) {
	if s.values == nil {
		s.values = make([][]float64, len(stageNames))
		s.last = make([]float64, len(stageNames))
	}
	vals := make([]float64, 0, len(stageNames))
	for _, st := range latencyStages(l) {
		vals = append(vals, st.ms)
	}
	vals = append(vals, l.TotalMs)
	for i, v := range vals {
		s.last[i] = v
		if v > 0 {
			s.values[i] = append(s.values[i], v)
		}
	}
	s.turns++
	s.summary = nil
}

func (s *latencyStats) summarise() []stageSummary {
	if s.summary != nil || s.turns == 0 {
		return s.summary
	}
	s.summary = []stageSummary{}
	for i, name := range stageNames {
		vs := s.values[i]
		if len(vs) == 0 {
			continue
		}
		sorted := slices.Sorted(slices.Values(vs))
		s.summary = append(s.summary, stageSummary{name: name, n: len(vs), last: s.last[i],
			p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[len(sorted)-1]})
	}
	return s.summary
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Dashboard columns: a stage name, then values of up to colWidth cells each.
const (
	nameWidth = 11 // "  " and the longest stage name
	colWidth  = 9  // " 1790 ms", " 133 µs", " 12.3 s"
)

// lines renders the dashboard in at most room lines and width cells: a table of stages (with
// as many of the last, p50, p95 and max columns as fit) when there is room, else a one-line
// summary of the total, else nothing.
func (s *latencyStats) lines(st *Styles, width, room int) []string {
	sum := s.summarise()
	if len(sum) == 0 || room < 2 {
		return nil
	}
	head := st.Key.Render("latency") + st.Muted.Render(" over "+plural(s.turns, "turn"))
	cols := min((width-nameWidth)/colWidth, 4)
	if room < len(sum)+3 || cols < 3 { // table: heading, column names, rows and the rule below
		t := sum[len(sum)-1]
		return []string{head + st.Muted.Render(fmt.Sprintf(" · %s p50 %s · p95 %s · max %s", t.name, fmtMs(t.p50), fmtMs(t.p95), fmtMs(t.max)))}
	}
	row := func(name string, vals ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "  %-*s", nameWidth-2, name)
		for _, v := range vals[:cols] {
			fmt.Fprintf(&b, "%*s", colWidth, v)
		}
		return b.String()
	}
	out := []string{head, st.Muted.Render(row("stage", "last", "p50", "p95", "max"))}
	for _, r := range sum {
		last := "–"
		if r.last > 0 {
			last = fmtMs(r.last)
		}
		line := row(r.name, last, fmtMs(r.p50), fmtMs(r.p95), fmtMs(r.max))
		if r.name == "total" {
			line = st.StatusValue.Render(line)
		}
		out = append(out, line)
	}
	return out
}

// fmtMs formats a duration in milliseconds with precision where it matters: the offline
// examiner's stages take microseconds, a slow LLM seconds.
func fmtMs(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 1:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", ms), ".0") + " ms"
	case ms >= 0.001:
		return fmt.Sprintf("%.0f µs", ms*1000)
	}
	return "0 ms"
}

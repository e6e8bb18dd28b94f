package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// debugEntry is one turn's observation: the raw report, the decision trace and the latency
// breakdown, rendered once per width.
type debugEntry struct {
	at    time.Time
	obs   runtime.ObservationPayload
	cache lineCache
}

// debugPane is the developer's view of every turn, under a latency dashboard.
type debugPane struct {
	entries []debugEntry
	stats   latencyStats
	scroll  scroller
	paneSize
	st *Styles
}

func newDebugPane(st *Styles) *debugPane { return &debugPane{st: st} }

func (p *debugPane) title() string { return "Debug" }

func (p *debugPane) badge() string { return plural(len(p.entries), "turn") }

func (p *debugPane) scrollBy(n int) { p.scroll.by(n) }

func (p *debugPane) invalidate() {
	for i := range p.entries {
		p.entries[i].cache.invalidate()
	}
}

func (p *debugPane) apply(ev runtime.Event, pl runtime.Payload) {
	if v, ok := pl.(*runtime.ObservationPayload); ok {
		p.entries = append(p.entries, debugEntry{at: ev.Timestamp, obs: *v})
		p.stats.add(v.Latency)
	}
}

// latencyStages names the stages in pipeline order.
func latencyStages(l runtime.Latency) []struct {
	name string
	ms   float64
} {
	return []struct {
		name string
		ms   float64
	}{
		{"endpoint", l.EndpointingMs}, {"stt", l.STTMs}, {"llm-first", l.LLMFirstTokenMs},
		{"llm", l.LLMCompleteMs}, {"filters", l.FiltersMs}, {"tts-first", l.TTSFirstByteMs},
	}
}

func (e *debugEntry) render(st *Styles) func(int) []string {
	return func(width int) []string {
		o := &e.obs
		valid := st.Good.Render("valid")
		if !o.Valid {
			valid = st.Bad.Render("invalid")
		}
		// Validity comes before the node and examiner, which a narrow pane cuts first.
		lines := []string{st.Muted.Render(clockOf(e.at)+" ") + st.Title.Render(fmt.Sprintf("turn %d", o.Turn)) + " " + valid +
			st.Muted.Render(" · "+o.NodeID+" · "+o.Examiner)}
		for _, pr := range o.Problems {
			lines = append(lines, indent(wrapPrefixed([]span{{"problem: ", st.Bad}}, oneLine(pr), nil, width-2, 2), "  ")...)
		}
		d := o.Decision
		dec := d.Action.String()
		if d.NextNode != "" {
			dec += " → " + d.NextNode
		}
		if d.Reason != "" {
			dec += " (" + d.Reason + ")"
		}
		lines = append(lines, indent(wrapPrefixed([]span{{"decision: ", st.Key}}, dec, nil, width-2, 2), "  ")...)
		for _, s := range d.Trace {
			mark, ms := "· ", st.Muted
			if s.Fired {
				mark, ms = "✓ ", st.Good
			}
			text := s.Rule
			if s.Detail != "" {
				text += ": " + oneLine(s.Detail)
			}
			lines = append(lines, indent(wrapPrefixed([]span{{mark, ms}}, text, nil, width-4, 2), "    ")...)
		}
		lines = append(lines, e.latencyLines(st, width)...)
		if len(o.Raw) > 0 {
			var buf bytes.Buffer
			raw := string(o.Raw)
			if json.Compact(&buf, o.Raw) == nil {
				raw = buf.String()
			}
			raw = cleanText(raw) // invalid JSON may carry raw control characters
			// Compact JSON has few spaces to break at: a space after each comma and colon
			// between tokens lets it wrap at token boundaries, like the rest of the console.
			lines = append(lines, indent(wrapPrefixed([]span{{"raw: ", st.Muted}}, spaceJSON(raw), &st.Muted, width-2, 2), "  ")...)
		}
		return lines
	}
}

// spaceJSON puts a space after every comma and colon outside strings, so compact JSON breaks
// between tokens when wrapped; strings are left as they are.
func spaceJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// latencyLines draws one proportional bar per measured stage, against the turn's total.
func (e *debugEntry) latencyLines(st *Styles, width int) []string {
	l := e.obs.Latency
	total, sum, longest := l.TotalMs, 0.0, 0.0
	for _, s := range latencyStages(l) {
		sum += s.ms
		longest = max(longest, s.ms)
	}
	if total <= 0 {
		total = sum
	}
	if total <= 0 {
		return []string{"  " + st.Muted.Render("latency: not measured")}
	}
	out := []string{"  " + st.Key.Render("latency ") + st.StatusValue.Render(fmtMs(total)) + st.Muted.Render(" to speech")}
	// A streamed reply starts speaking before the LLM completes, so a stage can outlast the
	// total: scale the bars to whichever is longer so they stay comparable within the turn.
	scale := max(total, longest)
	barW := min(max(width-26, 4), 30)
	for _, s := range latencyStages(l) {
		if s.ms <= 0 {
			continue
		}
		out = append(out, fmt.Sprintf("    %-9s %10s %s", s.name, fmtMs(s.ms), bar(st, s.ms/scale, barW)))
	}
	return out
}

func (p *debugPane) walk(width int, fn func([]string) bool) {
	walkNewest(p.entries, fn, func(e *debugEntry) []string { return e.cache.get(width, e.render(p.st)) })
}

func (p *debugPane) view() []string {
	width, height := p.width, p.height
	if len(p.entries) == 0 {
		return []string{p.st.Muted.Render("no observations yet")}
	}
	// The dashboard stays put above the scrolling turns, as long as it leaves them room.
	head := p.stats.lines(p.st, width, height-dashboardMinTurns)
	if len(head) > 0 {
		head = append(head, p.st.Border.Render(strings.Repeat("─", width)))
	}
	return append(head, p.scroll.windowMarked(p.walk, width, height-len(head), p.st)...)
}

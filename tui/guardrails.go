package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// guardEntry is one interception or recovery.
type guardEntry struct {
	at          time.Time
	recovery    bool
	name        string // filter or recovery kind
	action      runtime.GuardrailAction
	node        string
	original    string
	replacement string
	detail      string
	// filterAction, reason and phrase are the detail's parts (an output filter's, in sessions
	// recorded since the payload carries them); empty otherwise.
	filterAction, reason, phrase string
	cache                        lineCache
}

// guardrailsPane lists every interception and recovery, newest at the bottom, under a fixed
// line of counts.
type guardrailsPane struct {
	entries []guardEntry
	counts  map[string]int
	recov   int
	scroll  scroller
	paneSize
	st *Styles
}

func newGuardrailsPane(st *Styles) *guardrailsPane {
	return &guardrailsPane{st: st, counts: map[string]int{}}
}

func (p *guardrailsPane) title() string { return "Guardrails" }

func (p *guardrailsPane) badge() string {
	n := 0
	for _, c := range p.counts {
		n += c
	}
	return fmt.Sprintf("%d intercepted · %d recovered", n, p.recov)
}

func (p *guardrailsPane) scrollBy(n int) { p.scroll.by(n) }

func (p *guardrailsPane) invalidate() {
	for i := range p.entries {
		p.entries[i].cache.invalidate()
	}
}

func (p *guardrailsPane) apply(ev runtime.Event, pl runtime.Payload) {
	switch v := pl.(type) {
	case *runtime.GuardrailTriggeredPayload:
		p.counts[v.Guardrail]++
		p.entries = append(p.entries, guardEntry{at: ev.Timestamp, name: v.Guardrail, action: v.Action, node: v.NodeID,
			original: v.OriginalText, replacement: v.ReplacementText, detail: v.Detail,
			filterAction: v.FilterAction, reason: v.Reason, phrase: v.Phrase})
	case *runtime.RecoveryPayload:
		p.recov++
		d := v.Detail
		if v.SignalType != "" {
			d = strings.TrimSpace(v.SignalType + " " + d)
		}
		p.entries = append(p.entries, guardEntry{at: ev.Timestamp, recovery: true, name: v.Kind.String(), node: v.NodeID, detail: d})
	}
}

func (e *guardEntry) render(st *Styles) func(int) []string {
	return func(width int) []string {
		var lines []string
		if e.recovery {
			head := []span{{clockOf(e.at) + " ", st.Muted}, {"recovery ", st.Warn}, {e.name, st.Signal}}
			text := ""
			if e.detail != "" {
				text = " — " + oneLine(e.detail)
			}
			return wrapPrefixed(head, text, nil, width, 2)
		}
		head := []span{{clockOf(e.at) + " ", st.Muted}, {e.name, st.Bad}}
		meta := ""
		if e.action != "" {
			meta += " · " + e.action.String()
		}
		if d := e.readableDetail(); d != "" && d != e.name { // a limit's detail often repeats its name
			meta += " · " + d
		}
		lines = append(lines, wrapPrefixed(head, meta, &st.Muted, width, 2)...)
		switch said := oneLine(e.replacement); {
		case said != "":
			lines = append(lines, wrapPrefixed([]span{{"  said: ", st.Good}}, said, nil, width, 8)...)
		case e.action == runtime.GuardrailTransition:
			// A limit moved the exam on: the planned line was never spoken.
			lines = append(lines, wrapPrefixed([]span{{"  said: ", st.Good}}, "nothing; the exam moved to the next node", &st.Muted, width, 8)...)
		}
		if was := oneLine(e.original); was != "" {
			lines = append(lines, wrapPrefixed([]span{{"  was:  ", st.Rejected}}, was, &st.Rejected, width, 8)...)
		}
		return lines
	}
}

// guardDetail makes a filter's detail readable. Filters write "ACTION: WHY: PHRASE" (the
// filter's own action, why it fired, the words that fired it): shown as ACTION · WHY “PHRASE”,
// WHY left out when the phrase says it already ("drop_hint: hint: hint" reads
// drop_hint · “hint”).
//
// Sessions stored before the payload carried the parts apart have only the detail string;
// newer ones are read from the parts (readableDetail), said by the same rule (guardWords).
func guardDetail(d string) string {
	parts := strings.SplitN(d, ": ", 3)
	isWord := func(s string) bool { return s != "" && !strings.ContainsAny(s, " ,.") }
	switch {
	case len(parts) == 3 && isWord(parts[0]) && !strings.ContainsAny(parts[2], "\"“”():"):
		return guardWords(parts[0], parts[1], parts[2])
	case len(parts) >= 2 && isWord(parts[0]):
		return parts[0] + " · " + strings.Join(parts[1:], ": ")
	}
	return d
}

// readableDetail is the entry's detail as guardDetail says it, from the payload's parts when
// it has them.
func (e *guardEntry) readableDetail() string {
	if e.filterAction == "" {
		return guardDetail(oneLine(e.detail))
	}
	return guardWords(e.filterAction, oneLine(e.reason), oneLine(e.phrase))
}

// guardWords says a filter's action, why it fired and the words that fired it:
// ACTION · WHY “PHRASE”, WHY left out when the phrase says it already.
func guardWords(action, why, phrase string) string {
	switch {
	case phrase == "" && why == "":
		return action
	case phrase == "":
		return action + " · " + why
	case why == "" || strings.Contains(strings.ToLower(phrase), strings.ToLower(why)):
		return action + " · “" + phrase + "”"
	}
	return action + " · " + why + " “" + phrase + "”"
}

func (p *guardrailsPane) walk(width int, fn func([]string) bool) {
	walkNewest(p.entries, fn, func(e *guardEntry) []string { return e.cache.get(width, e.render(p.st)) })
}

// countsLine names each filter with its count, in a stable order.
func (p *guardrailsPane) countsLine() string {
	if len(p.counts) == 0 && p.recov == 0 {
		return p.st.Muted.Render("no interceptions")
	}
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(p.counts)) {
		fmt.Fprintf(&b, "%s %s  ", p.st.Bad.Render(n), p.st.StatusValue.Render(fmt.Sprint(p.counts[n])))
	}
	fmt.Fprintf(&b, "%s %s", p.st.Warn.Render("recoveries"), p.st.StatusValue.Render(fmt.Sprint(p.recov)))
	return b.String()
}

// contentRows counts the pane's lines at width (the counts line and every entry), stopping
// once it reaches limit, so the layout's question costs no more than the answer it needs.
func (p *guardrailsPane) contentRows(width, limit int) int {
	n := 1
	if width <= 0 {
		return n
	}
	p.walk(width, func(lines []string) bool {
		n += len(lines)
		return n < limit
	})
	return min(n, limit)
}

func (p *guardrailsPane) view() []string {
	width, height := p.width, p.height
	if height <= 0 {
		return nil
	}
	out := []string{p.countsLine()}
	return append(out, p.scroll.windowMarked(p.walk, width, height-1, p.st)...)
}

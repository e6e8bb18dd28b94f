package headless

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// ExportOptions describe the session a script is made from.
type ExportOptions struct {
	// Spec is the script's spec line: the spec path relative to where the script will live.
	Spec string
	// Examiner is offline or llm.
	Examiner string
	// Header is a comment written above the script (session id, when, where from).
	Header string
}

// ScriptFromEvents turns a recorded session into a candidate script: each candidate turn
// (typed, or what the recogniser heard, with its confidence), silence, examiner instruction and
// control in order, with waits where the session spent longer than a script would between
// steps; and, as expectations, what the session ended with and every decision it made, one
// per turn. Running the script against the same spec makes the same decisions.
func ScriptFromEvents(events []runtime.Event, o ExportOptions) ([]byte, error) {
	if len(events) == 0 {
		return nil, fmt.Errorf("%w: the session has no events", ErrScript)
	}
	if o.Examiner == "" {
		o.Examiner = "offline"
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(o.Header), "\n") {
		if l != "" {
			b.WriteString("# " + l + "\n")
		}
	}
	fmt.Fprintf(&b, "spec: %s\nexaminer: %s\n", yamlString(o.Spec), yamlString(o.Examiner))
	if pins := drawnVariants(events); len(pins) > 0 {
		// The session's draws, pinned: a replay meets the questions the candidate met.
		b.WriteString("variants: " + flowMap(pins) + "\n")
	}
	b.WriteString("turns:\n")

	start := events[0].Timestamp
	sim := time.Duration(0) // where a scripted run's virtual clock would be
	state := runtime.ExamState("")
	catchUp := func(at time.Time, cost time.Duration) {
		if gap := at.Sub(start) - sim - cost; gap >= time.Second {
			w := gap.Truncate(time.Second)
			fmt.Fprintf(&b, "  - wait: %d\n", int(w.Seconds()))
			sim += w
		}
	}
	steps := 0
	for _, ev := range events {
		p, err := ev.Decode()
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", ev.Seq, err)
		}
		switch p := p.(type) {
		case *runtime.ExamStatePayload:
			state = p.State
		case *runtime.ExamCompletedPayload:
			state = p.State
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker != runtime.SpeakerCandidate || !p.IsFinal {
				continue
			}
			steps++
			if p.Text == "" {
				d := time.Duration(p.DurationMs) * time.Millisecond
				d = max(d.Round(time.Second), time.Second)
				catchUp(ev.Timestamp, d)
				fmt.Fprintf(&b, "  - silence: %d\n", int(d.Seconds()))
				sim += d
				continue
			}
			words := len(strings.Fields(p.Text))
			cost := DefaultTurnGap + time.Duration(float64(words)/2.5*float64(time.Second)) + 500*time.Millisecond
			catchUp(ev.Timestamp, cost)
			fmt.Fprintf(&b, "  - say: %s\n", yamlString(p.Text))
			if p.Source != runtime.SourceTyped || p.Confidence < 1 {
				fmt.Fprintf(&b, "    confidence: %s\n", strconv.FormatFloat(math.Round(p.Confidence*1000)/1000, 'f', -1, 64))
			}
			sim += cost
		case *runtime.AdminInstructionPayload:
			switch {
			case p.Mode == runtime.AdminControl && p.Status == runtime.AdminApplied:
				catchUp(ev.Timestamp, 0)
				fmt.Fprintf(&b, "  - control: %s\n", p.Text)
				steps++
			case p.Status == runtime.AdminReceived:
				catchUp(ev.Timestamp, 0)
				fmt.Fprintf(&b, "  - admin: {mode: %s, text: %s", p.Mode, yamlString(p.Text))
				if p.Sender != "" {
					fmt.Fprintf(&b, ", sender: %s", yamlString(p.Sender))
				}
				b.WriteString("}\n")
				steps++
			}
		}
	}
	if steps == 0 {
		return nil, fmt.Errorf("%w: the session has no candidate turns or examiner steps to replay", ErrScript)
	}
	if !state.Terminal() {
		// An interrupted session: let the script's clock run to where the session stopped.
		catchUp(events[len(events)-1].Timestamp, 0)
	}
	r := &Result{}
	r.collect(events, runtime.Snapshot{State: state})
	b.WriteString(ExpectYAML(ExpectFrom(r, Expect{})))
	return []byte(b.String()), nil
}

// drawnVariants is the variant each node with variants was first entered in.
func drawnVariants(events []runtime.Event) map[string]string {
	out := map[string]string{}
	for _, ev := range events {
		if ev.Event != runtime.EventNodeEntered {
			continue
		}
		if p, err := ev.Decode(); err == nil {
			if ne := p.(*runtime.NodeEnteredPayload); ne.Variant != "" && out[ne.NodeID] == "" {
				out[ne.NodeID] = ne.Variant
			}
		}
	}
	return out
}

// flowMap writes a string map as a YAML flow mapping, keys sorted.
func flowMap(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = yamlString(k) + ": " + yamlString(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ExpectFrom builds the expectations a run meets: its final state, visits, counts and every
// decision. Keys the old expectations name are kept (with their new counts), so an author's
// "persona_break: 0" survives an update; events and maxTurnLatencyMs are kept only when named.
func ExpectFrom(r *Result, old Expect) Expect {
	completed := r.State == runtime.StateCompleted
	state := r.State.String()
	visits := append([]string{}, r.Visits...)
	merge := func(got, was map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range got {
			out[k] = v
		}
		for k := range was {
			out[k] = got[k]
		}
		return out
	}
	e := Expect{
		Completed: &completed, State: &state, Visits: &visits,
		Evidence: merge(r.Evidence, old.Evidence), Guardrails: merge(r.Guardrails, old.Guardrails),
		Commands: merge(r.Commands, old.Commands), MaxTurnLatencyMs: old.MaxTurnLatencyMs,
	}
	if len(r.Variants) > 0 {
		e.Variants = maps.Clone(r.Variants)
	}
	if old.Events != nil {
		e.Events = map[string]int{}
		for k := range old.Events {
			e.Events[k] = r.Events[k]
		}
	}
	dec := make([]string, len(r.Turns))
	for i, t := range r.Turns {
		dec[i] = t.Decision
	}
	e.Decisions = &dec
	return e
}

// ExpectYAML writes an expect block, keys in a fixed order and counts sorted, so rewritten
// scripts diff cleanly.
func ExpectYAML(e Expect) string {
	var b strings.Builder
	b.WriteString("expect:\n")
	if e.Completed != nil {
		fmt.Fprintf(&b, "  completed: %v\n", *e.Completed)
	}
	if e.State != nil {
		fmt.Fprintf(&b, "  state: %s\n", *e.State)
	}
	if e.Visits != nil {
		q := make([]string, len(*e.Visits))
		for i, v := range *e.Visits {
			q[i] = yamlString(v)
		}
		fmt.Fprintf(&b, "  visits: [%s]\n", strings.Join(q, ", "))
	}
	if len(e.Variants) > 0 {
		fmt.Fprintf(&b, "  variants: %s\n", flowMap(e.Variants))
	}
	for _, m := range []struct {
		key string
		m   map[string]int
	}{{"evidence", e.Evidence}, {"guardrails", e.Guardrails}, {"commands", e.Commands}, {"events", e.Events}} {
		if m.m == nil {
			continue
		}
		keys := slices.Sorted(maps.Keys(m.m))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s: %d", yamlString(k), m.m[k])
		}
		fmt.Fprintf(&b, "  %s: {%s}\n", m.key, strings.Join(parts, ", "))
	}
	if e.MaxTurnLatencyMs != nil {
		fmt.Fprintf(&b, "  maxTurnLatencyMs: %s\n", strconv.FormatFloat(*e.MaxTurnLatencyMs, 'f', -1, 64))
	}
	if e.Decisions != nil {
		b.WriteString("  decisions:\n")
		for _, d := range *e.Decisions {
			fmt.Fprintf(&b, "    - %s\n", yamlString(d))
		}
	}
	return b.String()
}

// yamlString quotes s as a YAML double-quoted scalar when it is not a plain safe word.
func yamlString(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '/') {
			safe = false
			break
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		safe = false
	}
	if safe && (s[0] == '-' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9')) {
		safe = false
	}
	if safe {
		return s
	}
	return strconv.Quote(s)
}

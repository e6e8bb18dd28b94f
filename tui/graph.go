package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/examgraph"
)

// WithExamGraph gives the console the exam's graph (examgraph.New), which enables the graph
// overlay (ctrl+g): the current node, the path taken so far and the transitions that leave
// the current node with what would fire them, against the node's live counts.
func WithExamGraph(g *examgraph.Graph) Option {
	return func(o *options) error {
		if g == nil {
			return fmt.Errorf("%w: nil exam graph", ErrInvalidOption)
		}
		o.graph = g
		return nil
	}
}

// graphStep is one node on the path taken: where the exam went and why it left.
type graphStep struct {
	node   string
	reason string // the exit reason; "" while the node is current
}

// graphPane follows the exam through its graph. It holds the live counts the transitions
// depend on (accepted evidence, follow-ups, off-topic answers, time in the node).
type graphPane struct {
	g  *examgraph.Graph
	st *Styles

	path               []graphStep
	current            string
	deadline, pausedAt time.Time // the node's deadline; when the exam paused (zero: running)
	budget             time.Duration
	accepted, required int
	nodeCounts
	over       string                     // the final exam state once it ended
	state      runtime.ExamState          // the exam's state, for the node marks
	skipped    map[string]bool            // nodes whose last exit was a skip
	lastReload *runtime.SpecReloadPayload // the last spec edit (reload.go)
}

func newGraphPane(g *examgraph.Graph, st *Styles) *graphPane { return &graphPane{g: g, st: st} }

func (p *graphPane) apply(ev runtime.Event, pl runtime.Payload) {
	switch v := pl.(type) {
	case *runtime.NodeEnteredPayload:
		p.path = append(p.path, graphStep{node: v.NodeID})
		p.current = v.NodeID
		p.budget, p.deadline = nodeDeadline(v, ev.Timestamp)
		p.accepted, p.required = 0, v.RequiredEvidenceCount
		p.nodeCounts.enter(v)
	case *runtime.NodeExitPayload:
		if p.skipped == nil {
			p.skipped = map[string]bool{}
		}
		p.skipped[v.NodeID] = v.Reason.Transition() == spec.ReasonSkipped // a revisit is judged by its last exit
		if v.Next == "" {
			break // the exam ended here: there is no edge to label
		}
		for i := len(p.path) - 1; i >= 0; i-- {
			if p.path[i].node == v.NodeID {
				p.path[i].reason = v.Reason.String()
				break
			}
		}
	case *runtime.EvidenceUpdatePayload:
		if v.NodeID == p.current && !v.Transversal && v.Misconception == nil {
			p.accepted, p.required = v.Accepted, max(v.Required, p.required)
		}
	case *runtime.FollowUpIssuedPayload:
		p.followUp(v)
	case *runtime.ObservationPayload:
		if v.NodeID == p.current && offTopicObservation(v) {
			p.offTopic++
		}
	case *runtime.ExamStatePayload:
		// A pause stops the node clock; the runtime restates the deadline on resuming, and
		// when it does not, the deadline moves by the pause.
		switch {
		case v.State == runtime.StatePaused && p.pausedAt.IsZero():
			p.pausedAt = ev.Timestamp
		case v.State == runtime.StateInProgress && !p.pausedAt.IsZero():
			if d := runtime.ParseDeadline(v.DeadlineAt); !d.IsZero() {
				p.deadline = d
			} else if !p.deadline.IsZero() {
				p.deadline = p.deadline.Add(ev.Timestamp.Sub(p.pausedAt))
			}
			p.pausedAt = time.Time{}
		}
	case *runtime.ExamCompletedPayload:
		p.over, p.state = v.State.String(), v.State
	case *runtime.SpecReloadPayload:
		p.reload(v)
	}
}

// lines renders the graph view at width w; now reads the node clock. compact puts each
// transition on one line with its reasons only, for a screen too short for what fires them.
func (p *graphPane) lines(w int, now time.Time, compact bool) []string {
	st := p.st
	var out []string
	add := func(prefix []span, text string, indent int) {
		out = append(out, wrapPrefixed(prefix, cleanText(text), nil, w, indent)...)
	}
	// Path: the nodes so far with the reason each was left by; the last few when it is long.
	const keep = 4
	steps := p.path
	var parts []string
	if len(steps) > keep {
		parts = append(parts, fmt.Sprintf("… %d earlier", len(steps)-keep))
		steps = steps[len(steps)-keep:]
	}
	for _, s := range steps {
		if s.reason != "" {
			parts = append(parts, s.node+" ─"+s.reason+"→")
		} else {
			parts = append(parts, s.node)
		}
	}
	if len(parts) == 0 {
		parts = []string{"not started (entry " + p.g.Entry + ")"}
	}
	add([]span{{"Path  ", st.Key}}, strings.Join(parts, " "), 6)

	n := p.g.Node(p.current)
	if p.over != "" {
		add([]span{{"Here  ", st.Key}}, "the exam is "+p.over, 6)
	} else if n != nil {
		add([]span{{"Here  ", st.Key}}, fmt.Sprintf("%s (%d of %d) · %s", n.ID, n.Index+1, len(p.g.Nodes), n.Kind), 6)
		var live []string
		if n.Kind == "assessment" {
			live = append(live, fmt.Sprintf("evidence %d/%d of [%s]", p.accepted, p.required, strings.Join(n.Signals, ", ")))
		}
		if n.Kind != "end" {
			live = append(live, fmt.Sprintf("follow-ups %d/%d", p.followUps, p.maxFollowUps),
				fmt.Sprintf("off-topic %d/%d", p.offTopic, max(p.maxOffTopic, 1)))
			if p.budget > 0 && !p.deadline.IsZero() {
				at := now
				if !p.pausedAt.IsZero() {
					at = p.pausedAt
				}
				used := min(max(p.budget-p.deadline.Sub(at), 0), p.budget)
				live = append(live, fmt.Sprintf("time %s/%s", clockDur(used), clockDur(p.budget)))
			}
		}
		if len(live) > 0 {
			add([]span{{"Now   ", st.Key}}, strings.Join(live, " · "), 6)
		}
	}
	out = append(out, "")
	switch {
	case p.over != "":
	case n == nil:
		out = append(out, st.Muted.Render("waiting for the first node"))
	case len(n.Edges) == 0:
		out = append(out, st.Muted.Render("an end node: the exam completes here"))
	default:
		out = append(out, st.Title.Render("From here"))
		for _, e := range n.Edges {
			if compact {
				reasons := make([]string, len(e.Triggers))
				for i, t := range e.Triggers {
					reasons[i] = t.Reason.String()
				}
				add([]span{{"→ " + e.To + " ", st.Current}}, "on "+strings.Join(reasons, ", "), 4)
				continue
			}
			out = append(out, st.Current.Render("→ "+e.To))
			for _, t := range e.Triggers {
				when := t.When
				if t.Explicit {
					when += " [transitions]"
				}
				add([]span{{"  " + fmt.Sprintf("%-20s", t.Reason.String()) + " ", st.Muted}}, when, 23)
			}
		}
	}
	out = append(out, "")
	// Every node at a glance, as the Timers pane marks it: ✓ done, ● here, ↷ skipped,
	// ■ where an aborted exam stopped, · not yet.
	seen := map[string]bool{}
	for _, s := range p.path {
		seen[s.node] = true
	}
	state := p.state
	if p.over == "" {
		state = runtime.StateInProgress
	}
	marks := make([]string, 0, len(p.g.Nodes))
	for _, gn := range p.g.Nodes {
		mark := map[nodeStatus]string{nodePending: "·", nodeCurrent: "●", nodeStopped: "■", nodeSkipped: "↷", nodeDone: "✓"}[nodeStatusOf(gn.ID, p.current, state, p.skipped[gn.ID], seen[gn.ID])]
		marks = append(marks, mark+gn.ID)
	}
	add([]span{{"Nodes ", st.Key}}, strings.Join(marks, "  "), 6)
	return append(out, p.reloadLines(w)...)
}

// clockDur formats a duration as m:ss.
func clockDur(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// graphOverlay draws the graph view over the body, like the help overlay.
func (m *Model) graphOverlay(h int) []string {
	w := min(m.width, 110)
	content := m.graph.lines(w-2, m.now(), false)
	if len(content)+2 > h {
		content = m.graph.lines(w-2, m.now(), true)
	}
	badge := m.keys.Graph.Help().Key + "/esc closes"
	return m.overlay("Exam graph", badge, w, h, content)
}

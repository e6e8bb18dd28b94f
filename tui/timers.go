package tui

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// timersPane shows where the exam is and how much time is left. Every duration is derived from
// deadlines and timestamps carried by events, evaluated against the console's clock, so a
// frame shows the right time however often it is drawn.
type timersPane struct {
	st  *Styles
	now func() time.Time // the console's clock (Model.now)
	paneSize

	state   runtime.ExamState
	plan    []string // node ids in spec order, when the runtime sent them
	visited []string
	seen    map[string]bool
	skipped map[string]bool // left by a skip, not finished

	node         string
	index, total int
	budget       time.Duration
	deadline     time.Time // zero when the node has no budget
	enteredAt    time.Time
	nodePaused   time.Duration // paused time inside the current node

	examStart    time.Time
	examBudget   time.Duration
	examDeadline time.Time
	examPaused   time.Duration
	examEnd      time.Time
	pausedAt     time.Time        // non-zero while paused
	restarts     runtime.Restarts // where a resumed process restarted the clocks, and after how long

	nodeCounts
	clarify, maxClarify int

	nodeWarning, examWarning string
	offset                   int // lines scrolled down from the top

	presence presenceView // the candidate in a room, who paused (presence.go)
}

func newTimersPane(st *Styles, now func() time.Time) *timersPane {
	return &timersPane{st: st, now: now, seen: map[string]bool{}, skipped: map[string]bool{}, state: runtime.StateCreated}
}

func (p *timersPane) title() string { return "Timers" }

func (p *timersPane) badge() string {
	if p.total > 0 {
		return fmt.Sprintf("node %d of %d", p.index, p.total)
	}
	return ""
}

func (p *timersPane) apply(ev runtime.Event, pl runtime.Payload) {
	ts := ev.Timestamp
	p.presence.apply(ev, pl)
	p.stopFor(p.restarts.Gap(ev, pl, p.state))
	switch v := pl.(type) {
	case *runtime.ExamStatePayload:
		if len(v.Nodes) > 0 {
			p.plan = append([]string(nil), v.Nodes...)
		}
		if v.TotalTimeBudgetSec > 0 {
			p.examBudget = time.Duration(v.TotalTimeBudgetSec) * time.Second
		}
		switch v.State {
		case runtime.StatePaused:
			p.pausedAt = ts
		case runtime.StateScaffolding, runtime.StateInProgress:
			if p.examStart.IsZero() {
				p.examStart = ts
				if p.examBudget > 0 && p.examDeadline.IsZero() {
					p.examDeadline = ts.Add(p.examBudget)
				}
			}
			if !p.pausedAt.IsZero() {
				// The runtime moves its deadlines by the pause; follow it, or do the same
				// arithmetic when the event does not restate them.
				p.stopFor(ts.Sub(p.pausedAt))
				p.pausedAt = time.Time{}
			}
		}
		if t := runtime.ParseDeadline(v.DeadlineAt); !t.IsZero() {
			p.deadline = t
		}
		if t := runtime.ParseDeadline(v.ExamDeadlineAt); !t.IsZero() {
			p.examDeadline = t
		}
		if v.State.Terminal() {
			if !p.pausedAt.IsZero() {
				ts = p.pausedAt
			}
			p.examEnd = ts
			p.pausedAt = time.Time{}
		}
		p.state = v.State
	case *runtime.NodeEnteredPayload:
		p.node, p.index, p.total = v.NodeID, v.Progress.CurrentNodeIndex, v.Progress.TotalNodes
		p.enteredAt, p.nodePaused = ts, 0
		p.budget, p.deadline = nodeDeadline(v, ts)
		p.nodeCounts.enter(v)
		p.clarify, p.maxClarify = 0, v.MaxClarifications
		p.nodeWarning = ""
		if !p.seen[v.NodeID] {
			p.seen[v.NodeID] = true
			p.visited = append(p.visited, v.NodeID)
		}
		if p.examStart.IsZero() {
			p.examStart = ts
		}
	case *runtime.NodeExitPayload:
		// A revisited node is judged by its last exit.
		p.skipped[v.NodeID] = v.Reason.Transition() == spec.ReasonSkipped
	case *runtime.FollowUpIssuedPayload:
		p.followUp(v)
	case *runtime.ObservationPayload:
		if offTopicObservation(v) {
			p.offTopic++
		}
	case *runtime.CommandAcknowledgedPayload:
		if v.Command == string(runtime.CmdClarification) && v.Accepted {
			p.clarify++
		}
	case *runtime.TimeWarningPayload:
		w := fmt.Sprintf("⚠ %s time: %d s left", v.Scope, v.RemainingSec)
		if v.Scope == runtime.WarningExam {
			p.examWarning = w
		} else {
			p.nodeWarning = w
		}
	case *runtime.ExamCompletedPayload:
		if p.examEnd.IsZero() {
			p.examEnd = ts
		}
		p.state = v.State
	}
}

// stopFor takes gap, a time the runtime's clocks stood still (a pause, a restart), off both
// clocks: it moves the deadlines, as the runtime does, and the paused time of clocks without one.
func (p *timersPane) stopFor(gap time.Duration) {
	p.nodePaused += gap
	p.examPaused += gap
	if !p.deadline.IsZero() {
		p.deadline = p.deadline.Add(gap)
	}
	if !p.examDeadline.IsZero() {
		p.examDeadline = p.examDeadline.Add(gap)
	}
}

// at is the instant the clocks are read at: now while running, frozen while paused or after
// the exam ended.
func (p *timersPane) at(now time.Time) time.Time {
	switch {
	case !p.examEnd.IsZero():
		return p.examEnd
	case !p.pausedAt.IsZero():
		return p.pausedAt
	}
	return now
}

func (p *timersPane) nodeElapsed(now time.Time) time.Duration {
	t := p.at(now)
	if p.budget > 0 && !p.deadline.IsZero() {
		return p.budget - p.deadline.Sub(t)
	}
	if p.enteredAt.IsZero() {
		return 0
	}
	return t.Sub(p.enteredAt) - p.nodePaused
}

func (p *timersPane) examElapsed(now time.Time) time.Duration {
	if p.examStart.IsZero() {
		return 0
	}
	t := p.at(now)
	if p.examBudget > 0 && !p.examDeadline.IsZero() {
		return p.examBudget - p.examDeadline.Sub(t)
	}
	return t.Sub(p.examStart) - p.examPaused
}

func (p *timersPane) stateStyle() string { return styledState(p.st, p.state) }

// styledState names an exam state in the style of its kind: paused warns, running is good.
func styledState(st *Styles, state runtime.ExamState) string {
	s := state.String()
	switch {
	case state == runtime.StatePaused:
		return st.Warn.Render(s)
	case state == runtime.StateInProgress || state == runtime.StateScaffolding:
		return st.Good.Render(s)
	case state.Terminal():
		return st.StatusValue.Render(s)
	}
	return st.Muted.Render(s)
}

// gauge renders "label mm:ss / mm:ss ███░░" sized to width.
func (p *timersPane) gauge(label string, elapsed, budget time.Duration, width int) string {
	lbl := p.st.StatusKey.Render(fmt.Sprintf("%-6s", label))
	if budget <= 0 {
		return lbl + mmss(elapsed)
	}
	nums := mmss(elapsed) + " / " + mmss(budget)
	numStyle := p.st.StatusValue
	if elapsed > budget {
		numStyle = p.st.Bad
	}
	barW := min(width-7-len(nums), 24)
	line := lbl + numStyle.Render(nums)
	if barW >= 4 {
		line += " " + bar(p.st, float64(elapsed)/float64(budget), barW)
	}
	return line
}

func (p *timersPane) limit(used, maxN int) string {
	if maxN > 0 {
		return fmt.Sprintf("%d/%d", used, maxN)
	}
	return fmt.Sprint(used)
}

// lines renders the pane's content, most important first, so a short pane keeps the top.
func (p *timersPane) lines(width int, now time.Time) []string {
	st := p.st
	state := p.stateStyle()
	if p.state == runtime.StatePaused && p.presence.paused != "" {
		state = st.Warn.Render(p.presence.paused) // who paused it
	}
	out := []string{st.StatusKey.Render("State ") + state}
	if p.node != "" {
		// The title's badge says "node i of N"; the line names the node, which a narrow pane
		// would otherwise cut first.
		out[0] += st.Muted.Render(" · ") + st.Current.Render(p.node)
	}
	if s := p.presence.line(st, now); s != "" && !p.state.Terminal() {
		// In a room, while the exam runs (a leave after the end is not recorded): next to the
		// state, so a short pane keeps it.
		out = append(out, s)
	}
	out = append(out,
		p.gauge("Node", p.nodeElapsed(now), p.budget, width),
		p.gauge("Exam", p.examElapsed(now), p.examBudget, width),
		st.StatusKey.Render("Follow-ups ")+st.StatusValue.Render(p.limit(p.followUps, p.maxFollowUps))+
			st.StatusKey.Render("  Off-topic ")+st.StatusValue.Render(p.limit(p.offTopic, p.maxOffTopic))+
			st.StatusKey.Render("  Clarify ")+st.StatusValue.Render(p.limit(p.clarify, p.maxClarify)))
	for _, w := range []string{p.examWarning, p.nodeWarning} {
		if w != "" {
			out = append(out, st.Warn.Render(w))
		}
	}
	nodes := p.plan
	if len(nodes) == 0 {
		nodes = p.visited
	}
	if len(nodes) > 0 {
		out = append(out, st.StatusKey.Render("Nodes"))
	}
	for _, n := range nodes {
		switch nodeStatusOf(n, p.node, p.state, p.skipped[n], p.seen[n]) {
		case nodeCurrent:
			out = append(out, st.Current.Render("▶ "+n))
		case nodeStopped:
			// Aborted or expired inside this node: it was not finished.
			out = append(out, st.Bad.Render("■ ")+n)
		case nodeSkipped:
			out = append(out, st.Muted.Render("↷ "+n+" (skipped)"))
		case nodeDone:
			out = append(out, st.Good.Render("✓ ")+n)
		default:
			out = append(out, st.Muted.Render("  "+n))
		}
	}
	if len(p.plan) == 0 && p.total > len(p.visited) {
		out = append(out, st.Muted.Render(fmt.Sprintf("  … %d more", p.total-len(p.visited))))
	}
	return out
}

// contentRows is the number of lines the pane shows at width, at most limit.
func (p *timersPane) contentRows(width, limit int) int {
	return min(len(p.lines(width, p.now())), limit)
}

// invalidate has nothing to drop: the pane renders afresh every frame, as its clocks move.
func (p *timersPane) invalidate() {}

func (p *timersPane) view() []string {
	height := p.height
	ls := p.lines(p.width, p.now())
	// The first lines (state, clocks, counts) always stay; only the node list scrolls.
	p.offset = min(p.offset, max(len(ls)-height, 0))
	if p.offset > 0 && height > 5 {
		ls = append(ls[:5:5], ls[5+p.offset:]...)
	}
	if len(ls) > height {
		ls = ls[:height]
	}
	return ls
}

// scrollBy moves the node list: positive n goes back towards its top.
func (p *timersPane) scrollBy(n int) { p.offset = max(p.offset-n, 0) }

// nodeDeadline is a node's time budget and its deadline: the one the runtime stated, else the
// budget counted from at (when the node was entered); zero without a budget.
func nodeDeadline(v *runtime.NodeEnteredPayload, at time.Time) (time.Duration, time.Time) {
	budget := time.Duration(v.TimeBudgetSec) * time.Second
	deadline := runtime.ParseDeadline(v.DeadlineAt)
	if deadline.IsZero() && budget > 0 {
		deadline = at.Add(budget)
	}
	return budget, deadline
}

// nodeCounts are the current node's follow-ups and off-topic answers against its limits, which
// the timers and the exam graph both show.
type nodeCounts struct {
	followUps, maxFollowUps int
	offTopic, maxOffTopic   int
}

// enter starts the counts of a node just entered.
func (c *nodeCounts) enter(v *runtime.NodeEnteredPayload) {
	*c = nodeCounts{maxFollowUps: v.MaxFollowUps, maxOffTopic: v.MaxOffTopicRedirects}
}

// followUp takes the runtime's count of follow-ups, and its limit when it states one.
func (c *nodeCounts) followUp(v *runtime.FollowUpIssuedPayload) {
	c.followUps = v.Count
	if v.Max > 0 {
		c.maxFollowUps = v.Max
	}
}

// offTopicObservation reports whether an observation judged the answer off topic; the
// counters and the exam graph both count these against the node's redirect limit.
func offTopicObservation(v *runtime.ObservationPayload) bool {
	var q struct {
		AnswerQuality string `json:"answerQuality"`
	}
	return len(v.Raw) > 0 && json.Unmarshal(v.Raw, &q) == nil && q.AnswerQuality == string(runtime.QualityOffTopic)
}

package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"time"
)

// nodeParity says, for every field of nodeState, how a resumed controller must agree with the
// live one at the same point of the event log: the value to compare, or why the field is not
// compared. A field added to nodeState without a row here fails TestResumeParity.
var nodeParity = map[string]struct {
	value func(s *nodeState, at time.Time) any
	skip  string
}{
	"node":           {value: func(s *nodeState, _ time.Time) any { return nodeIDOf(s) }},
	"nodeGen":        {value: func(s *nodeState, _ time.Time) any { return s.nodeGen }},
	"nodeClock":      {value: func(s *nodeState, at time.Time) any { return clockAt(s.nodeClock, at) }},
	"followUps":      {value: func(s *nodeState, _ time.Time) any { return s.followUps }},
	"offTopic":       {value: func(s *nodeState, _ time.Time) any { return s.offTopic }},
	"clarifications": {value: func(s *nodeState, _ time.Time) any { return s.clarifications }},
	"nodeWarned":     {value: func(s *nodeState, _ time.Time) any { return s.nodeWarned }},
	"pendingFinish":  {value: func(s *nodeState, _ time.Time) any { return s.pendingFinish }},
	"lastQuestion":   {value: func(s *nodeState, _ time.Time) any { return s.lastQuestion }},
	"segments":       {value: func(s *nodeState, _ time.Time) any { return fmt.Sprintf("%+v", s.segments) }},
	// A resume starts the silence count over at the moment it resumes (restore sets
	// lastUserActivity to now): a process that was down cannot know how long the candidate
	// was quiet, so the stage is not in the log and starts at 0.
	"saying":          {value: func(s *nodeState, _ time.Time) any { return fmt.Sprintf("%q", s.saying) }},
	"cut":             {value: func(s *nodeState, _ time.Time) any { return s.cut }},
	"silenceStage":    {skip: "restarted by a resume"},
	"silenceActivity": {skip: "restarted by a resume"},
}

func nodeIDOf(s *nodeState) string {
	if s.node == nil {
		return ""
	}
	return s.node.NodeID
}

type clockReading struct {
	Elapsed time.Duration
	Running bool
}

func clockAt(s stopwatch, at time.Time) clockReading { return clockReading{s.elapsed(at), s.running} }

// ParityState is the controller's state that a resume from its event log must reproduce, read
// at at (the time of the log's last event, so clocks compare without the quiet time after
// it): every nodeState field by its nodeParity row, and the exam-wide state entering a node
// touches (the visits, the beats), what the examiner is given: the whole LLM context
// (contextManager, with the utterance being said recorded) and the directions state (pending,
// wrap-up, opening, calls made), and the evidence ledger. It fails when nodeState has a field
// without a parity row, or a row names no field.
func ParityState(c *Controller, at time.Time) (map[string]any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]any{}
	typ := reflect.TypeFor[nodeState]()
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		row, ok := nodeParity[f.Name]
		if !ok {
			return nil, fmt.Errorf("nodeState.%s has no nodeParity row: say how a resume restores it", f.Name)
		}
		seen[f.Name] = true
		if row.skip == "" {
			out["node."+f.Name] = row.value(&c.nodeState, at)
		}
	}
	for name := range nodeParity {
		if !seen[name] {
			return nil, fmt.Errorf("nodeParity row %q names no nodeState field", name)
		}
	}

	// The ledger with each entry's STT summary: a resume rebuilds it from the evidence_update
	// events, and the gate's later decisions (a clear repeat) rest on it and on the segments.
	out["ledger"] = fmt.Sprintf("%+v", c.ledger.Entries())
	out["examClock"] = clockAt(c.examClock, at)
	if c.restartPending {
		// Restored and not started: the clocks stopped at the log's last event (at) and run
		// again from this process's first event.
		for _, k := range []string{"examClock", "node.nodeClock"} {
			r := out[k].(clockReading)
			r.Running = true
			out[k] = r
		}
	}
	out["visited"] = slices.Clone(c.visited)
	fired := make([]bool, len(c.beats))
	for i, b := range c.beats {
		fired[i] = b.fired
	}
	out["beats.fired"] = fired
	out["context"] = c.ctxm.contextParity()
	// The admin queue: what a resume left queued (received, not yet consumed, promoted or
	// found not actionable), in order, with nothing being applied between calls.
	queued := make([]string, len(c.queued))
	for i, a := range c.queued {
		queued[i] = a.Mode.String() + " " + a.Text + " by " + a.Sender
	}
	out["admin"] = fmt.Sprintf("queued=%q applying=%q", queued, c.applying)
	out["directions"] = fmt.Sprintf("pending=%q wrapUp=%q opening=%q calls=%d inCall=%q",
		c.integ.directions, c.integ.wrapUp, c.integ.opening, c.integ.examinerCalls, c.integ.inCall)
	return out, nil
}

package sessions

import (
	"encoding/json"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/spec"
)

// aggregate is the per-session summary kept in the sessions row (state, end, counts,
// coverage), updated in the same transaction as the events it summarises.
type aggregate struct {
	state         runtime.ExamState
	endedNs       int64
	eventCount    int64
	lastEventNs   int64
	evidenceCount int
	completed     bool // exam_completed is stored: the session has its summary
	// nodeCoverage is the latest coverage reported per node; targets are the nodes that have
	// evidence targets, over which overall coverage is averaged.
	nodeCoverage map[string]float64
	targets      []string
	// usage adds up the usage the events carry (usage.AddEvent), so listing sessions prices them without
	// reading their events.
	usage usage.Totals
}

func newAggregate(exam *spec.Exam, state runtime.ExamState) *aggregate {
	a := &aggregate{state: state, nodeCoverage: map[string]float64{}}
	if exam != nil {
		for _, n := range exam.Nodes {
			if len(n.Controller.EvidenceSignals) > 0 {
				a.targets = append(a.targets, n.NodeID)
			}
		}
	}
	return a
}

// apply folds one event in. Undecodable payloads still count as events; they just add no
// detail (the journal only stores payloads that are valid JSON).
func (a *aggregate) apply(ev runtime.Event) {
	a.eventCount = ev.Seq
	ns := ev.Timestamp.UnixNano()
	a.lastEventNs = ns
	a.usage.AddEvent(ev)
	switch ev.Event {
	case runtime.EventExamState:
		p, err := ev.Decode()
		if err != nil {
			return
		}
		st := p.(*runtime.ExamStatePayload).State
		a.state = st
		if st.Terminal() && a.endedNs == 0 {
			a.endedNs = ns
		}
	case runtime.EventEvidenceUpdate:
		p, err := ev.Decode()
		if err != nil {
			return
		}
		u := p.(*runtime.EvidenceUpdatePayload)
		a.evidenceCount++
		a.nodeCoverage[u.NodeID] = u.Coverage
	case runtime.EventExamCompleted:
		a.completed = true
		p, err := ev.Decode()
		if err != nil {
			return
		}
		c := p.(*runtime.ExamCompletedPayload)
		if c.State != "" {
			a.state = c.State
		}
		for node, cov := range c.Coverage {
			a.nodeCoverage[node] = cov
		}
		if a.endedNs == 0 {
			a.endedNs = ns
		}
	}
}

func (a *aggregate) ended() bool { return a.endedNs != 0 }

// coverage is the mean coverage over the exam's nodes with evidence targets (0..1).
func (a *aggregate) coverage() float64 {
	if len(a.targets) == 0 {
		return 0
	}
	var sum float64
	for _, n := range a.targets {
		c := a.nodeCoverage[n]
		if c > 1 {
			c = 1
		}
		sum += c
	}
	return sum / float64(len(a.targets))
}

func (a *aggregate) clone() *aggregate {
	c := *a
	c.nodeCoverage = make(map[string]float64, len(a.nodeCoverage))
	for k, v := range a.nodeCoverage {
		c.nodeCoverage[k] = v
	}
	c.usage = a.usage.Clone()
	return &c
}

// usageJSON is the usage column's value.
func (a *aggregate) usageJSON() string {
	return marshalUsage(a.usage)
}

func marshalUsage(t usage.Totals) string {
	b, err := json.Marshal(t)
	if err != nil { // a map of plain numbers always marshals
		return "{}"
	}
	return string(b)
}

// unmarshalUsage reads the usage column; "{}" (a session with no model calls, or from before
// the column existed and not yet backfilled) is the zero Totals.
func unmarshalUsage(s string) (usage.Totals, error) {
	var t usage.Totals
	if s == "" || s == "{}" {
		return t, nil
	}
	err := json.Unmarshal([]byte(s), &t)
	return t, err
}

// Package examgraph describes a compiled exam as a graph: its nodes, the transitions between
// them and what fires each transition (evidence signals, counts, time, guardrails, candidate
// commands, examiner controls). `examtui graph` renders it as a text tree, Mermaid or Graphviz
// DOT; the console's Debug view shows the part that leaves the current node.
//
// The conditions restate the controller's decision order (runtime/guardrails.go, commands.go,
// admin.go) from the compiled node's resolved limits, so they read true for the exam as run.
package examgraph

import (
	"fmt"
	"strings"

	"github.com/examtui/examtui/spec"
)

// TriggerKind is what kind of condition fires a transition.
type TriggerKind int

// Trigger kinds.
const (
	TriggerSignals   TriggerKind = iota + 1 // accepted evidence signals (or a substantive answer)
	TriggerCount                            // a per-node count reaches its limit
	TriggerTime                             // a time budget runs out
	TriggerGuardrail                        // a safety guardrail (distress)
	TriggerCommand                          // a candidate command or an examiner control
)

func (k TriggerKind) String() string {
	switch k {
	case TriggerSignals:
		return "signals"
	case TriggerCount:
		return "count"
	case TriggerTime:
		return "time"
	case TriggerGuardrail:
		return "guardrail"
	case TriggerCommand:
		return "command"
	}
	return fmt.Sprintf("TriggerKind(%d)", int(k))
}

// Trigger is one transition reason and what makes it fire from a node.
type Trigger struct {
	Reason spec.Reason `json:"reason"`
	Kind   TriggerKind `json:"-"`
	// Explicit is true when the author named the reason in the node's transitions; otherwise it
	// falls back to the node's next.
	Explicit bool `json:"explicit"`
	// When says what fires it, in the words of the node's resolved limits.
	When string `json:"when"`
}

// Edge is a transition from one node to another, with every reason that takes it.
type Edge struct {
	From     string    `json:"from"`
	To       string    `json:"to"`
	Triggers []Trigger `json:"triggers"`
}

// Node is one exam node with the transitions that leave it.
type Node struct {
	ID    string        `json:"id"`
	Index int           `json:"index"`
	Kind  spec.NodeKind `json:"kind"`
	// Signals are the node's evidence targets; Required how many distinct ones it needs.
	Signals       []string `json:"signals,omitempty"`
	Required      int      `json:"required,omitempty"`
	TimeBudgetSec int      `json:"timeBudgetSec,omitempty"`
	// Variants are the node's versions of its question and Draw how the runtime picks one.
	Variants []string      `json:"variants,omitempty"`
	Draw     spec.DrawKind `json:"draw,omitempty"`
	Edges    []Edge        `json:"edges,omitempty"`
}

// Graph is a compiled exam as nodes and transitions.
type Graph struct {
	ExamID             string `json:"examId"`
	Title              string `json:"title"`
	Entry              string `json:"entry"`
	TotalTimeBudgetSec int    `json:"totalTimeBudgetSec,omitempty"`
	Nodes              []Node `json:"nodes"`
}

// New builds the graph of a compiled exam. Nodes keep spec order; each node's edges are in
// the order their first reason appears in spec.Reasons (evidence first, examiner controls last).
func New(e *spec.Exam) (*Graph, error) {
	if e == nil {
		return nil, ErrNilExam
	}
	g := &Graph{ExamID: e.ID, Title: e.Title, Entry: e.EntryNode, TotalTimeBudgetSec: e.TotalTimeBudgetSec}
	for i := range e.Nodes {
		cn := &e.Nodes[i]
		n := Node{ID: cn.NodeID, Index: cn.Index, Kind: cn.Kind, TimeBudgetSec: cn.Controller.TimeBudgetSec}
		if cn.Kind == spec.KindAssessment {
			n.Signals = append([]string(nil), cn.Controller.EvidenceSignals...)
			n.Required = cn.Controller.RequiredEvidenceCount
		}
		if len(cn.Variants) > 0 {
			n.Variants, n.Draw = cn.VariantIDs(), cn.Controller.Draw
		}
		if cn.Kind != spec.KindEnd {
			n.Edges = edges(e, cn)
		}
		g.Nodes = append(g.Nodes, n)
	}
	return g, nil
}

// Node returns the node with the given id, or nil.
func (g *Graph) Node(id string) *Node {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i]
		}
	}
	return nil
}

func edges(e *spec.Exam, n *spec.CompiledNode) []Edge {
	var out []Edge
	at := map[string]int{}
	for _, r := range spec.Reasons {
		to, ok := n.Successor(r)
		if !ok {
			continue
		}
		t, ok := trigger(e, n, r)
		if !ok {
			continue
		}
		_, t.Explicit = n.Controller.Transitions[r]
		k, seen := at[to]
		if !seen {
			k = len(out)
			at[to] = k
			out = append(out, Edge{From: n.NodeID, To: to})
		}
		out[k].Triggers = append(out[k].Triggers, t)
	}
	return out
}

// trigger says what fires reason r from node n, and whether it can fire at all.
func trigger(e *spec.Exam, n *spec.CompiledNode, r spec.Reason) (Trigger, bool) {
	c := n.Controller
	t := Trigger{Reason: r}
	switch r {
	case spec.ReasonEvidenceSufficient:
		t.Kind = TriggerSignals
		if n.Kind == spec.KindScaffolding {
			t.When = "a substantive answer"
		} else {
			t.When = fmt.Sprintf("%d of [%s] accepted, examiner agrees",
				c.RequiredEvidenceCount, strings.Join(c.EvidenceSignals, ", "))
		}
	case spec.ReasonFollowUpsExhausted:
		t.Kind = TriggerCount
		t.When = fmt.Sprintf("a follow-up is needed after %s", plural(c.MaxFollowUps, "follow-up"))
	case spec.ReasonTimeExhausted:
		if c.TimeBudgetSec <= 0 {
			return t, false // no budget: the node has no clock to run out
		}
		t.Kind = TriggerTime
		t.When = fmt.Sprintf("more than %ds in the node", c.TimeBudgetSec)
	case spec.ReasonOffTopicLimit:
		t.Kind = TriggerCount
		t.When = plural(max(c.MaxOffTopicRedirects, 1), "off-topic answer")
	case spec.ReasonSkipped:
		t.Kind = TriggerCommand
		if e.Policies.SkipAllowed {
			t.When = "candidate command skip, or examiner control skip"
		} else {
			t.When = "examiner control skip (skipAllowed is false)"
		}
	case spec.ReasonDistress:
		t.Kind = TriggerGuardrail
		t.When = "distress detected"
	case spec.ReasonAdminAdvance:
		t.Kind = TriggerCommand
		t.When = "examiner control advance"
	default:
		return t, false
	}
	return t, true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

package headless

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/examgraph"
)

// ErrCoverageSpec is returned when a run is counted against another exam's coverage.
var ErrCoverageSpec = errors.New("coverage: run of a different exam")

// CoverKind is one kind of exam item a coverage report counts.
type CoverKind int

// Coverage kinds, in report order.
const (
	CoverNodes       CoverKind = iota + 1 // nodes entered
	CoverTransitions                      // (node, reason → successor) transitions taken
	CoverSignals                          // (node, signal) evidence accepted where the node listens for it
	CoverRubric                           // (signal, level) rubric criteria that received evidence
	CoverGuardrails                       // transition and safety guardrails that fired
	CoverFilters                          // enabled output filters that fired
	CoverCommands                         // candidate commands used
	CoverVariants                         // (node, variant) versions of a question a script met
)

// CoverKinds lists the kinds in report order.
var CoverKinds = []CoverKind{CoverNodes, CoverTransitions, CoverSignals, CoverRubric, CoverGuardrails, CoverFilters, CoverCommands, CoverVariants}

func (k CoverKind) String() string {
	switch k {
	case CoverNodes:
		return "nodes"
	case CoverTransitions:
		return "transitions"
	case CoverSignals:
		return "signals"
	case CoverRubric:
		return "rubric"
	case CoverGuardrails:
		return "guardrails"
	case CoverFilters:
		return "filters"
	case CoverCommands:
		return "commands"
	case CoverVariants:
		return "variants"
	}
	return fmt.Sprintf("CoverKind(%d)", int(k))
}

// MarshalText writes the kind's name in JSON.
func (k CoverKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// CoverItem is one thing of the exam a script can exercise.
type CoverItem struct {
	Name string `json:"name"`
	// Where is file:line:col in the spec that defines it; empty for what the spec does not
	// spell out (a default filter, the candidate commands every exam accepts).
	Where string `json:"where,omitempty"`
	Hits  int    `json:"hits"`
}

// KindCoverage is the coverage of one kind.
type KindCoverage struct {
	Kind    CoverKind   `json:"kind"`
	Covered int         `json:"covered"`
	Total   int         `json:"total"`
	Percent float64     `json:"percent"`
	Items   []CoverItem `json:"items"`
}

// Coverage is what a set of scripts exercised of one exam.
type Coverage struct {
	Spec    string         `json:"spec"`
	ExamID  string         `json:"examId"`
	Scripts []string       `json:"scripts"`
	Covered int            `json:"covered"`
	Total   int            `json:"total"`
	Percent float64        `json:"percent"`
	Kinds   []KindCoverage `json:"kinds"`

	index map[CoverKind]map[string]int // item name -> index into Kinds[k-1].Items
}

// NewCoverage lists every coverable item of the script's exam, with where the spec defines it.
func NewCoverage(s *Script) (*Coverage, error) {
	exam, err := s.CompileSpec()
	if err != nil {
		return nil, err
	}
	src, err := s.readSpec()
	if err != nil {
		return nil, err
	}
	// Compile succeeded, so Load reports nothing that matters here; it gives the positions.
	doc, _ := spec.Load(s.specPath, src)
	return newCoverage(s.specPath, exam, doc)
}

func (s *Script) readSpec() ([]byte, error) {
	var src []byte
	var err error
	if s.fsys != nil {
		src, err = fs.ReadFile(s.fsys, s.specPath)
	} else {
		src, err = spec.ReadSourceFile(s.specPath)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSpec, s.pos("$.spec"), err)
	}
	return src, nil
}

// VariantName names a variant item: "node: variant".
func VariantName(nodeID, variant string) string { return nodeID + ": " + variant }

// TransitionName names a transition item: "from → to on reason".
func TransitionName(from string, reason spec.Reason, to string) string {
	return from + " → " + to + " on " + reason.String()
}

func newCoverage(specPath string, exam *spec.Exam, doc *spec.Spec) (*Coverage, error) {
	g, err := examgraph.New(exam)
	if err != nil {
		return nil, err
	}
	c := &Coverage{Spec: specPath, ExamID: exam.ID, index: map[CoverKind]map[string]int{}}
	for _, k := range CoverKinds {
		c.Kinds = append(c.Kinds, KindCoverage{Kind: k})
		c.index[k] = map[string]int{}
	}
	where := func(path string) string {
		if p, ok := doc.Position(path); ok {
			return p.String()
		}
		return ""
	}
	add := func(k CoverKind, name, at string) {
		if _, dup := c.index[k][name]; dup {
			return
		}
		kc := &c.Kinds[k-1]
		c.index[k][name] = len(kc.Items)
		kc.Items = append(kc.Items, CoverItem{Name: name, Where: at})
	}
	nodePath := func(n *spec.CompiledNode) string { return fmt.Sprintf("nodes[%d]", n.Index) }
	anyBudget := false
	for i := range exam.Nodes {
		n := &exam.Nodes[i]
		np := nodePath(n)
		add(CoverNodes, n.NodeID, where(np+".nodeId"))
		anyBudget = anyBudget || n.Controller.TimeBudgetSec > 0
		for k, sig := range n.Controller.EvidenceSignals {
			add(CoverSignals, n.NodeID+": "+sig, where(fmt.Sprintf("%s.evidenceSignals[%d]", np, k)))
		}
		for k, sig := range n.Controller.TransversalSkills {
			add(CoverSignals, n.NodeID+": "+sig, where(fmt.Sprintf("%s.transversalSkills[%d]", np, k)))
		}
		for k, v := range n.VariantIDs() {
			add(CoverVariants, VariantName(n.NodeID, v), where(fmt.Sprintf("%s.variants[%d].id", np, k)))
		}
	}
	for _, gn := range g.Nodes {
		n := exam.Node(gn.ID)
		np := nodePath(n)
		for _, e := range gn.Edges {
			for _, t := range e.Triggers {
				at := where(np + ".next")
				if t.Explicit {
					at = where(np + ".transitions")
					if doc != nil {
						for k, tr := range doc.Nodes[n.Index].Transitions {
							if tr.On == t.Reason {
								at = where(fmt.Sprintf("%s.transitions[%d].on", np, k))
							}
						}
					}
				}
				add(CoverTransitions, TransitionName(e.From, t.Reason, e.To), at)
			}
		}
	}
	for i, ev := range exam.Evidence {
		for k, lvl := range ev.Levels {
			add(CoverRubric, ev.SignalType+": "+lvl, where(fmt.Sprintf("evidence[%d].levels[%d]", i, k)))
		}
	}
	for _, g := range runtime.Guardrails {
		// The limits and the support guardrail are what an author can exercise by script; the
		// time budget only where the exam has one, and the silence check-in is a pacing aid.
		switch {
		case g.Kind == runtime.GuardrailKindLimit && g.Name == "time_budget" && !anyBudget,
			g.Kind == runtime.GuardrailKindLimit && g.Name == "silence",
			g.Kind != runtime.GuardrailKindLimit && g.Kind != runtime.GuardrailKindSupport:
			continue
		}
		add(CoverGuardrails, g.Name.String(), "")
	}
	for _, f := range exam.Filters {
		if !f.Enabled {
			continue
		}
		at := ""
		if doc != nil && doc.OutputValidation != nil {
			for k, fc := range doc.OutputValidation.Filters {
				if fc.Name == f.Name {
					at = where(fmt.Sprintf("outputValidation.filters[%d].name", k))
				}
			}
		}
		add(CoverFilters, f.Name.String(), at)
	}
	for _, cmd := range runtime.Commands {
		if cmd == runtime.CmdSkip && !exam.Policies.SkipAllowed {
			continue // refused whatever the candidate says: nothing to exercise
		}
		add(CoverCommands, cmd.String(), "")
	}
	c.tally()
	return c, nil
}

// Add counts what one run exercised. A run of another exam is an error.
func (c *Coverage) Add(r *Result) error {
	if r == nil {
		return nil
	}
	c.Scripts = append(c.Scripts, r.Script)
	hit := func(k CoverKind, name string) {
		if i, ok := c.index[k][name]; ok {
			c.Kinds[k-1].Items[i].Hits++
		}
	}
	filters := map[string]bool{}
	for _, n := range spec.FilterNames {
		filters[n.String()] = true
	}
	for _, ev := range r.Log {
		p, err := ev.Decode()
		if err != nil {
			continue
		}
		switch p := p.(type) {
		case *runtime.ExamStatePayload:
			// The first exam_state names the exam's nodes: a run of another exam would
			// silently cover nothing, so refuse it.
			if len(p.Nodes) > 0 && len(p.Nodes) != len(c.Kinds[CoverNodes-1].Items) {
				return fmt.Errorf("%w: %s ran an exam with %d nodes, %s has %d", ErrCoverageSpec, r.Script, len(p.Nodes), c.Spec, len(c.Kinds[CoverNodes-1].Items))
			}
		case *runtime.NodeEnteredPayload:
			hit(CoverNodes, p.NodeID)
			if p.Variant != "" {
				hit(CoverVariants, VariantName(p.NodeID, p.Variant))
			}
		case *runtime.NodeExitPayload:
			if p.Next != "" {
				hit(CoverTransitions, TransitionName(p.NodeID, p.Reason.Transition(), p.Next))
			}
		case *runtime.EvidenceUpdatePayload:
			if p.Misconception != nil {
				continue
			}
			hit(CoverSignals, p.NodeID+": "+p.SignalType)
			if p.RubricLevel != "" {
				hit(CoverRubric, p.SignalType+": "+p.RubricLevel)
			}
		case *runtime.GuardrailTriggeredPayload:
			if filters[p.Guardrail] {
				hit(CoverFilters, p.Guardrail)
			} else {
				hit(CoverGuardrails, p.Guardrail)
			}
		case *runtime.CommandAcknowledgedPayload:
			if p.Source != runtime.CommandByConfirmation {
				hit(CoverCommands, p.Command)
			}
		}
	}
	c.tally()
	return nil
}

func (c *Coverage) tally() {
	c.Covered, c.Total = 0, 0
	for i := range c.Kinds {
		kc := &c.Kinds[i]
		kc.Covered, kc.Total = 0, len(kc.Items)
		for _, it := range kc.Items {
			if it.Hits > 0 {
				kc.Covered++
			}
		}
		kc.Percent = percent(kc.Covered, kc.Total)
		c.Covered += kc.Covered
		c.Total += kc.Total
	}
	c.Percent = percent(c.Covered, c.Total)
}

// percent is covered/total as a percentage rounded to one decimal; nothing to cover is 100%.
func percent(covered, total int) float64 {
	if total == 0 {
		return 100
	}
	return float64(int(float64(covered)*1000/float64(total)+0.5)) / 10
}

// Kind returns the coverage of one kind.
func (c *Coverage) Kind(k CoverKind) *KindCoverage {
	if k < 1 || int(k) > len(c.Kinds) {
		return nil
	}
	return &c.Kinds[k-1]
}

// Uncovered lists the items of kind k no script exercised, in spec order.
func (c *Coverage) Uncovered(k CoverKind) []CoverItem {
	var out []CoverItem
	if kc := c.Kind(k); kc != nil {
		for _, it := range kc.Items {
			if it.Hits == 0 {
				out = append(out, it)
			}
		}
	}
	return out
}

// CoverageSet groups coverage by spec, for a run over scripts of several exams.
type CoverageSet struct {
	bySpec map[string]*Coverage
	order  []string
}

// Add counts a run into its spec's coverage, creating it from the script on first sight.
func (cs *CoverageSet) Add(s *Script, r *Result) error {
	if cs.bySpec == nil {
		cs.bySpec = map[string]*Coverage{}
	}
	key := s.specPath
	c, ok := cs.bySpec[key]
	if !ok {
		var err error
		if c, err = NewCoverage(s); err != nil {
			return err
		}
		cs.bySpec[key] = c
		cs.order = append(cs.order, key)
	}
	return c.Add(r)
}

// Specs returns the coverage of each spec, in the order the specs were first seen.
func (cs *CoverageSet) Specs() []*Coverage {
	out := make([]*Coverage, 0, len(cs.order))
	for _, k := range cs.order {
		out = append(out, cs.bySpec[k])
	}
	return out
}

// Below returns the specs whose total coverage is under min percent, sorted by spec.
func (cs *CoverageSet) Below(min float64) []*Coverage {
	var out []*Coverage
	for _, c := range cs.Specs() {
		if c.Percent < min {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec < out[j].Spec })
	return out
}

// summaryLine is "nodes 4/4 100%" for one kind.
func (k *KindCoverage) summaryLine() string {
	return fmt.Sprintf("%-11s %3d/%-3d %5.1f%%", k.Kind, k.Covered, k.Total, k.Percent)
}

package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Marking is the exam's marking scheme as written (docs/marking.md): the criteria a marker
// levels, how a level is proposed from the evidence ledger, and how the marks add up to a
// result. An exam without one collects evidence as before and cannot be marked.
type Marking struct {
	// Markers is how many independent markers each session needs (default 1; 2 is double
	// marking).
	Markers    *int           `json:"markers,omitempty" yaml:"markers,omitempty"`
	Moderation *Moderation    `json:"moderation,omitempty" yaml:"moderation,omitempty"`
	Rule       *MarkingRule   `json:"rule,omitempty" yaml:"rule,omitempty"`
	Criteria   []Criterion    `json:"criteria" yaml:"criteria"`
	Result     *MarkingResult `json:"result,omitempty" yaml:"result,omitempty"`
}

// Moderation says how markers' differences settle: within Tolerance levels (and when the
// markers' totals fall in the same result and grade band) by the Settle rule, otherwise by a
// moderator's adjudication; Sample is the share of sessions a moderator reviews anyway.
type Moderation struct {
	Tolerance *int    `json:"tolerance,omitempty" yaml:"tolerance,omitempty"`
	Settle    string  `json:"settle,omitempty" yaml:"settle,omitempty"`
	Sample    *Sample `json:"sample,omitempty" yaml:"sample,omitempty"`
}

// Sample is the moderation sample: Percent of an exam's sessions, at least Min.
type Sample struct {
	Percent *float64 `json:"percent,omitempty" yaml:"percent,omitempty"`
	Min     *int     `json:"min,omitempty" yaml:"min,omitempty"`
}

// Settle rules: how a within-tolerance difference becomes the final level.
const (
	SettleLower   = "lower"
	SettleHigher  = "higher"
	SettleAverage = "average"
	SettleFirst   = "first"
)

// SettleRules are the settle rules in the order the docs list them.
var SettleRules = []string{SettleLower, SettleHigher, SettleAverage, SettleFirst}

// MaxMarkers bounds marking.markers.
const MaxMarkers = 5

// MarkingRule tunes the proposal rule; absent fields take the defaults below.
type MarkingRule struct {
	MinConfidence *float64         `json:"minConfidence,omitempty" yaml:"minConfidence,omitempty"`
	MinSignals    *int             `json:"minSignals,omitempty" yaml:"minSignals,omitempty"`
	Scaffolding   *ScaffoldingRule `json:"scaffolding,omitempty" yaml:"scaffolding,omitempty"`
}

// ScaffoldingRule caps what evidence given after heavy help counts for: a signal reported
// with scaffolding intensity fromIntensity or more counts demote levels lower.
type ScaffoldingRule struct {
	FromIntensity *int `json:"fromIntensity,omitempty" yaml:"fromIntensity,omitempty"`
	Demote        *int `json:"demote,omitempty" yaml:"demote,omitempty"`
}

// Criterion is one thing the marker levels, resting on one or more evidence signals.
type Criterion struct {
	ID      string   `json:"id" yaml:"id"`
	Title   string   `json:"title" yaml:"title"`
	Signals []string `json:"signals" yaml:"signals"`
	// Nodes, when set, restricts the evidence the rule counts to signals heard in these
	// nodes; absent, a signal counts whichever node it was heard in.
	Nodes  []string         `json:"nodes,omitempty" yaml:"nodes,omitempty"`
	Levels []CriterionLevel `json:"levels" yaml:"levels"`
}

// CriterionLevel is one level of a criterion, lowest first, with the marks it earns.
type CriterionLevel struct {
	Name  string `json:"name" yaml:"name"`
	Marks *int   `json:"marks" yaml:"marks"`
}

// MarkingResult turns the total into a result: pass or fail, and a grade band.
type MarkingResult struct {
	PassMark *int    `json:"passMark" yaml:"passMark"`
	Grades   []Grade `json:"grades,omitempty" yaml:"grades,omitempty"`
}

// Grade is a band: the grade of a total is the band with the highest minMarks at or below it.
type Grade struct {
	Name     string `json:"name" yaml:"name"`
	MinMarks *int   `json:"minMarks" yaml:"minMarks"`
}

// Marking rule defaults (docs/marking.md, "The rule").
const (
	DefaultMarkingMinConfidence     = 0.5
	DefaultMarkingMinSignals        = 1
	DefaultScaffoldingFromIntensity = 2
	DefaultScaffoldingDemote        = 1
	maxScaffoldingIntensity         = 3
)

// NoLevel is the level of a criterion with no evidence at or above its lowest level: it earns
// no marks, and a marker may give it too. It ranks below every level.
const NoLevel = "none"

// CompiledMarking is the marking scheme with every default resolved.
type CompiledMarking struct {
	// Markers is marking.markers as written (0: not written, one marker); MarkersNeeded
	// resolves it. The store's row-level security reads this key of the compiled exam.
	Markers int `json:"markers,omitempty"`
	// Moderation is nil when the scheme has none: tolerance 0, every difference adjudicated.
	Moderation *CompiledModeration `json:"moderation,omitempty"`
	Rule       ResolvedMarkingRule `json:"rule"`
	Criteria   []CompiledCriterion `json:"criteria"`
	MaxTotal   int                 `json:"maxTotal"`
	// PassMark and Grades are set only when the scheme has a result section; Grades are
	// ordered by minMarks, highest first.
	PassMark *int            `json:"passMark,omitempty"`
	Grades   []CompiledGrade `json:"grades,omitempty"`
}

// CompiledModeration is the moderation section with its defaults: settle lower, no sample.
type CompiledModeration struct {
	Tolerance     int     `json:"tolerance"`
	Settle        string  `json:"settle"`
	SamplePercent float64 `json:"samplePercent,omitempty"`
	SampleMin     int     `json:"sampleMin,omitempty"`
}

// MarkersNeeded is how many independent markers each session needs.
func (m *CompiledMarking) MarkersNeeded() int { return max(1, m.Markers) }

// Tolerance is how many levels apart markers may be and still settle without adjudication.
func (m *CompiledMarking) Tolerance() int {
	if m.Moderation == nil {
		return 0
	}
	return m.Moderation.Tolerance
}

// ResolvedMarkingRule is the proposal rule's parameters. ScaffoldingDemote 0 means scaffolding
// caps nothing (the scheme names no scaffolding rule).
type ResolvedMarkingRule struct {
	MinConfidence     float64 `json:"minConfidence"`
	MinSignals        int     `json:"minSignals"`
	ScaffoldingFrom   int     `json:"scaffoldingFromIntensity,omitempty"`
	ScaffoldingDemote int     `json:"scaffoldingDemote,omitempty"`
}

// CompiledCriterion is a criterion with its levels lowest first.
type CompiledCriterion struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Signals []string `json:"signals"`
	// Nodes are the nodes whose evidence counts; empty, every node's (omitted then, so the
	// compiled form of a scheme without it does not change).
	Nodes  []string        `json:"nodes,omitempty"`
	Levels []CompiledLevel `json:"levels"`
}

// CountsIn reports whether evidence heard in node counts for the criterion.
func (c *CompiledCriterion) CountsIn(node string) bool {
	return len(c.Nodes) == 0 || slices.Contains(c.Nodes, node)
}

// CompiledLevel is one level and its marks.
type CompiledLevel struct {
	Name  string `json:"name"`
	Marks int    `json:"marks"`
}

// CompiledGrade is one grade band.
type CompiledGrade struct {
	Name     string `json:"name"`
	MinMarks int    `json:"minMarks"`
}

// Criterion returns the criterion with the given id, or nil.
func (m *CompiledMarking) Criterion(id string) *CompiledCriterion {
	for i := range m.Criteria {
		if m.Criteria[i].ID == id {
			return &m.Criteria[i]
		}
	}
	return nil
}

// Rank is the level's place, 1 for the lowest level, 0 for NoLevel, -1 for a name the
// criterion does not have.
func (c *CompiledCriterion) Rank(level string) int {
	if level == NoLevel {
		return 0
	}
	for i, l := range c.Levels {
		if l.Name == level {
			return i + 1
		}
	}
	return -1
}

// Marks are the marks a level earns (0 for NoLevel or an unknown name).
func (c *CompiledCriterion) Marks(level string) int {
	if r := c.Rank(level); r > 0 {
		return c.Levels[r-1].Marks
	}
	return 0
}

// LevelNames lists NoLevel and the criterion's levels, lowest first.
func (c *CompiledCriterion) LevelNames() []string {
	out := []string{NoLevel}
	for _, l := range c.Levels {
		out = append(out, l.Name)
	}
	return out
}

// Grade returns the grade band of total, "" when the scheme has no bands or total is below all.
func (m *CompiledMarking) Grade(total int) string {
	for _, g := range m.Grades { // highest first
		if total >= g.MinMarks {
			return g.Name
		}
	}
	return ""
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// compileMarking resolves the scheme; nil when the spec has none, so the compiled form of
// exams without one does not change.
func compileMarking(m *Marking) *CompiledMarking {
	if m == nil {
		return nil
	}
	out := &CompiledMarking{Rule: ResolvedMarkingRule{MinConfidence: DefaultMarkingMinConfidence, MinSignals: DefaultMarkingMinSignals},
		Markers: intOr(m.Markers, 0)}
	if mo := m.Moderation; mo != nil {
		out.Moderation = &CompiledModeration{Tolerance: intOr(mo.Tolerance, 0), Settle: mo.Settle}
		if out.Moderation.Settle == "" {
			out.Moderation.Settle = SettleLower
		}
		if sm := mo.Sample; sm != nil {
			if sm.Percent != nil {
				out.Moderation.SamplePercent = *sm.Percent
			}
			out.Moderation.SampleMin = intOr(sm.Min, 0)
		}
	}
	if r := m.Rule; r != nil {
		if r.MinConfidence != nil {
			out.Rule.MinConfidence = *r.MinConfidence
		}
		out.Rule.MinSignals = intOr(r.MinSignals, DefaultMarkingMinSignals)
		if s := r.Scaffolding; s != nil {
			out.Rule.ScaffoldingFrom = intOr(s.FromIntensity, DefaultScaffoldingFromIntensity)
			out.Rule.ScaffoldingDemote = intOr(s.Demote, DefaultScaffoldingDemote)
		}
	}
	for _, c := range m.Criteria {
		cc := CompiledCriterion{ID: c.ID, Title: c.Title, Signals: slices.Clone(c.Signals), Nodes: slices.Clone(c.Nodes)}
		best := 0
		for _, l := range c.Levels {
			cc.Levels = append(cc.Levels, CompiledLevel{Name: l.Name, Marks: intOr(l.Marks, 0)})
			best = max(best, intOr(l.Marks, 0))
		}
		out.MaxTotal += best
		out.Criteria = append(out.Criteria, cc)
	}
	if r := m.Result; r != nil {
		pass := intOr(r.PassMark, 0)
		out.PassMark = &pass
		for _, g := range r.Grades {
			out.Grades = append(out.Grades, CompiledGrade{Name: g.Name, MinMarks: intOr(g.MinMarks, 0)})
		}
		slices.SortStableFunc(out.Grades, func(a, b CompiledGrade) int { return b.MinMarks - a.MinMarks })
	}
	return out
}

// checkMarking validates the scheme, every problem at once.
func (c *checker) checkMarking(signals, nodeIDs idSet) {
	m := c.s.Marking
	if m == nil {
		return
	}
	levelsOf := map[string][]string{}
	for _, e := range c.s.Evidence {
		levelsOf[e.SignalType] = e.Levels
	}
	c.checkMarkingRule(m.Rule)
	c.checkModeration(m)
	if len(m.Criteria) == 0 && !c.bad("marking.criteria") {
		c.errorf("marking.criteria", "", "marking must list at least one criterion")
	}
	seen := map[string]string{}
	var ids idSet
	maxTotal := 0
	for i := range m.Criteria {
		maxTotal += c.checkCriterion(i, &ids, seen, signals, levelsOf)
		c.checkCriterionNodes(i, nodeIDs)
	}
	c.checkMarkingResult(m.Result, maxTotal)
}

// checkModeration checks marking.markers and marking.moderation.
func (c *checker) checkModeration(m *Marking) {
	if m.Markers != nil && (*m.Markers < 1 || *m.Markers > MaxMarkers) {
		c.errorf("marking.markers", fmt.Sprintf("1 (single marking) to %d; 2 is double marking", MaxMarkers), "markers %d is out of range", *m.Markers)
	}
	mo := m.Moderation
	if mo == nil {
		return
	}
	const path = "marking.moderation"
	if mo.Tolerance != nil && *mo.Tolerance < 0 {
		c.errorf(path+".tolerance", "levels apart, 0 or more", "tolerance %d is out of range", *mo.Tolerance)
	}
	if mo.Settle != "" && !slices.Contains(SettleRules, mo.Settle) {
		c.errorf(path+".settle", "one of "+strings.Join(SettleRules, ", "), "unknown settle rule %q", mo.Settle)
	}
	if s := mo.Sample; s != nil {
		if s.Percent != nil && (*s.Percent < 0 || *s.Percent > 100) {
			c.errorf(path+".sample.percent", "between 0 and 100", "sample percent %g is out of range", *s.Percent)
		}
		if s.Min != nil && *s.Min < 0 {
			c.errorf(path+".sample.min", "0 or more sessions", "sample min %d is out of range", *s.Min)
		}
	}
	if mo.Tolerance != nil && *mo.Tolerance > 0 && (m.Markers == nil || *m.Markers < 2) {
		c.warnf(path+".tolerance", "set marking.markers: 2", "a tolerance settles differences between markers, but the scheme needs one marker")
	}
}

func (c *checker) checkMarkingRule(r *MarkingRule) {
	if r == nil {
		return
	}
	const path = "marking.rule"
	if r.MinConfidence != nil && (*r.MinConfidence < 0 || *r.MinConfidence > 1) {
		c.errorf(path+".minConfidence", "between 0 and 1", "minConfidence %g is out of range", *r.MinConfidence)
	}
	if r.MinSignals != nil && *r.MinSignals < 1 {
		c.errorf(path+".minSignals", "at least 1", "minSignals %d is out of range", *r.MinSignals)
	}
	if s := r.Scaffolding; s != nil {
		if s.FromIntensity != nil && (*s.FromIntensity < 1 || *s.FromIntensity > maxScaffoldingIntensity) {
			c.errorf(path+".scaffolding.fromIntensity", "scaffolding intensity runs from 1 to 3", "fromIntensity %d is out of range", *s.FromIntensity)
		}
		if s.Demote != nil && *s.Demote < 1 {
			c.errorf(path+".scaffolding.demote", "at least 1 level", "demote %d is out of range", *s.Demote)
		}
	}
}

// checkCriterion validates criterion i and returns the most marks it can earn.
func (c *checker) checkCriterion(i int, ids *idSet, seen map[string]string, signals idSet, levelsOf map[string][]string) int {
	cr := &c.s.Marking.Criteria[i]
	path := at("marking.criteria", i)
	if c.required(path+".id", cr.ID, "id of criterion") {
		if !idPattern.MatchString(cr.ID) {
			c.errorf(path+".id", "use letters, digits, '_', '.' and '-', starting with a letter or digit", "invalid criterion id %q", cr.ID)
		}
		c.define(ids, seen, cr.ID, path+".id", "criterion")
	}
	label := "criterion " + quoteOr(cr.ID, path)
	c.required(path+".title", cr.Title, "title of "+label)
	if len(cr.Signals) == 0 && !c.bad(path+".signals") {
		c.errorf(path+".signals", "the evidence signals the criterion rests on", "%s needs at least one signal", label)
	}
	known := map[string]bool{} // the levels its signals report
	for j, sig := range cr.Signals {
		sp := at(path+".signals", j)
		if c.bad(sp) {
			continue
		}
		if !signals.has[sig] {
			c.errorf(sp, c.signalHint(sig, signals), "%s names undefined signal %q", label, sig)
			continue
		}
		for _, l := range levelsOf[sig] {
			known[l] = true
		}
	}
	c.uniqueStrings(path+".signals", cr.Signals, "signal")
	if len(cr.Levels) == 0 && !c.bad(path+".levels") {
		c.errorf(path+".levels", "e.g. description, analysis, evaluation with their marks", "%s needs at least one level", label)
	}
	names := map[string]bool{}
	best, prev := 0, -1
	for j, l := range cr.Levels {
		lp := at(path+".levels", j)
		if c.required(lp+".name", l.Name, "name of a level of "+label) {
			switch {
			case l.Name == NoLevel:
				c.errorf(lp+".name", "\"none\" is the level of no evidence, always there", "%s: level name %q is reserved", label, l.Name)
			case names[l.Name]:
				c.errorf(lp+".name", "", "%s: duplicate level %q", label, l.Name)
			case len(known) > 0 && !known[l.Name]:
				c.errorf(lp+".name", hintFor(l.Name, "levels", slices.Sorted(maps.Keys(known))),
					"%s: level %q is not a level its signals report", label, l.Name)
			}
			names[l.Name] = true
		}
		switch {
		case c.bad(lp + ".marks"):
		case l.Marks == nil:
			if !c.bad(lp) {
				c.errorf(lp+".marks", "", "%s: level %s needs marks", label, quoteOr(l.Name, lp))
			}
		case *l.Marks < 0:
			c.errorf(lp+".marks", "", "%s: marks must not be negative, got %d", label, *l.Marks)
		case *l.Marks <= prev:
			c.errorf(lp+".marks", "a higher level earns more marks", "%s: level marks are not increasing (%d after %d)", label, *l.Marks, prev)
		}
		if l.Marks != nil {
			prev = max(prev, *l.Marks)
			best = max(best, *l.Marks)
		}
	}
	c.checkLevelOrder(path, label, cr, levelsOf)
	return best
}

// checkCriterionNodes checks criterion i's nodes: a non-empty list (an empty one would count
// nothing), each a node of the exam, named once.
func (c *checker) checkCriterionNodes(i int, nodeIDs idSet) {
	cr := &c.s.Marking.Criteria[i]
	path := at("marking.criteria", i) + ".nodes"
	if cr.Nodes == nil || c.bad(path) {
		return
	}
	label := "criterion " + quoteOr(cr.ID, at("marking.criteria", i))
	if len(cr.Nodes) == 0 {
		c.errorf(path, "name the nodes whose evidence counts, or leave nodes out to count every node's", "%s: nodes is empty", label)
		return
	}
	c.uniqueStrings(path, cr.Nodes, "node")
	for j, id := range cr.Nodes {
		np := at(path, j)
		if c.bad(np) || strings.TrimSpace(id) == "" {
			continue
		}
		if !nodeIDs.has[id] {
			c.errorf(np, hintFor(id, "nodes", nodeIDs.list), "%s: nodes names unknown node %q", label, id)
		}
	}
}

// checkLevelOrder reports criterion levels in another order than a signal lists them: the
// rule compares levels by their place, which must mean the same for the examiner's reports.
func (c *checker) checkLevelOrder(path, label string, cr *Criterion, levelsOf map[string][]string) {
	for _, sig := range cr.Signals {
		order := levelsOf[sig]
		last := -1
		for j, l := range cr.Levels {
			k := slices.Index(order, l.Name)
			if k < 0 {
				continue
			}
			if k < last {
				c.errorf(at(path+".levels", j), "list the levels lowest first, as signal "+sig+" does: "+strings.Join(order, " < "),
					"%s: levels are out of order", label)
				return
			}
			last = k
		}
	}
}

func (c *checker) checkMarkingResult(r *MarkingResult, maxTotal int) {
	if r == nil {
		return
	}
	const path = "marking.result"
	switch {
	case c.bad(path + ".passMark"):
	case r.PassMark == nil:
		if !c.bad(path) {
			c.errorf(path+".passMark", "the least total that passes", "result needs passMark")
		}
	case *r.PassMark < 0:
		c.errorf(path+".passMark", "", "passMark must not be negative, got %d", *r.PassMark)
	case *r.PassMark > maxTotal:
		c.errorf(path+".passMark", "", "passMark %d is more than the %d marks the criteria can give", *r.PassMark, maxTotal)
	}
	names := map[string]bool{}
	mins := map[int]string{}
	for i, g := range r.Grades {
		gp := at(path+".grades", i)
		if c.required(gp+".name", g.Name, "name of grade") {
			if names[g.Name] {
				c.errorf(gp+".name", "", "duplicate grade %q", g.Name)
			}
			names[g.Name] = true
		}
		switch {
		case c.bad(gp + ".minMarks"):
		case g.MinMarks == nil:
			if !c.bad(gp) {
				c.errorf(gp+".minMarks", "", "grade %s needs minMarks", quoteOr(g.Name, gp))
			}
		case *g.MinMarks < 0:
			c.errorf(gp+".minMarks", "", "minMarks must not be negative, got %d", *g.MinMarks)
		case *g.MinMarks > maxTotal:
			c.errorf(gp+".minMarks", "", "grade %s needs %d marks, more than the %d the criteria can give", quoteOr(g.Name, gp), *g.MinMarks, maxTotal)
		default:
			if other, dup := mins[*g.MinMarks]; dup {
				c.errorf(gp+".minMarks", "", "grades %q and %q both start at %d marks", other, g.Name, *g.MinMarks)
			}
			mins[*g.MinMarks] = g.Name
		}
	}
}

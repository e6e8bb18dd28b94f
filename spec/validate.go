package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	examIDPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	idPattern       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	signalPattern   = regexp.MustCompile(`^[a-z0-9_]+$`)
	languagePattern = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)
	wordPattern     = regexp.MustCompile(`[A-Za-z]+`)
	gradingWords    = map[string]bool{"excellent": true, "good": true, "weak": true, "level": true, "levels": true, "mark": true, "marks": true, "grade": true, "grades": true, "graded": true, "grading": true, "score": true, "scores": true, "scored": true, "scoring": true}
	specVersions    = []string{"1"}
	reservedNodeIDs = map[string]bool{beatScopeExam: true}
)

const (
	beatScopeExam = "exam"
	minTTSSpeed   = 0.25
	maxTTSSpeed   = 4.0
)

// Validate checks a spec and returns every problem, sorted by position. It does not stop at
// the first error.
func Validate(s *Spec) Diagnostics {
	if s == nil {
		return Diagnostics{{Severity: Error, Message: "no spec"}}
	}
	c := newChecker(s)
	c.validate()
	c.diags.Sort()
	return c.diags
}

func (c *checker) validate() {
	s := c.s
	if c.required("specVersion", s.SpecVersion, "specVersion") && !slices.Contains(specVersions, s.SpecVersion) {
		c.errorf("specVersion", `this compiler reads specVersion "1"`, "unsupported specVersion %q", s.SpecVersion)
	}
	if c.required("id", s.ID, "id") && !examIDPattern.MatchString(s.ID) {
		c.errorf("id", "use lower-case letters, digits, '_' and '-', starting with a letter or digit", "invalid exam id %q", s.ID)
	}
	c.required("title", s.Title, "title")
	c.notEmpty("language", s.Language, "language", useDefault)
	if s.Language != "" && !languagePattern.MatchString(s.Language) {
		c.errorf("language", "a BCP-47 tag such as en, en-GB, de", "invalid language tag %q", s.Language)
	}
	if s.TotalTimeBudgetSec < 0 {
		c.errorf("totalTimeBudgetSec", "", "totalTimeBudgetSec must not be negative, got %d", s.TotalTimeBudgetSec)
	}
	personas := c.checkPersonas()
	c.checkPolicies()
	signals := c.checkEvidence()
	nodeIDs := c.checkNodeIDs()
	for i := range s.Nodes {
		c.checkNode(i, signals, personas, nodeIDs)
	}
	c.checkFilters()
	c.checkBeats(nodeIDs)
	c.checkMarking(signals, nodeIDs)
	c.checkGraph()
	c.checkLanguage()
	if s.Context != nil && s.Context.SummaryTokens != nil {
		if n := *s.Context.SummaryTokens; n < MinSummaryTokens || n > MaxSummaryTokens {
			c.errorf("context.summaryTokens", fmt.Sprintf("allowed: %d to %d", MinSummaryTokens, MaxSummaryTokens),
				"summaryTokens %d is out of range", n)
		}
	}
}

// idSet is a list of ids in file order with constant-time lookup (exams can be large).
type idSet struct {
	list []string
	has  map[string]bool
}

func (s *idSet) add(id string) {
	if s.has == nil {
		s.has = map[string]bool{}
	}
	s.list = append(s.list, id)
	s.has[id] = true
}

// define adds id, defined at path, to ids, or reports it as a duplicate of its first
// definition: seen maps each id to where it was first defined.
func (c *checker) define(ids *idSet, seen map[string]string, id, path, what string) {
	if first, dup := seen[id]; dup {
		c.errorf(path, "first defined at "+c.line(first), "duplicate %s %q", what, id)
		return
	}
	seen[id] = path
	ids.add(id)
}

// requireList reports the top-level list field when it is missing or empty; item names what
// it lists.
func (c *checker) requireList(field string, n int, item string) {
	if n > 0 || c.bad(field) {
		return
	}
	if c.present(field) {
		c.errorf(field, "", "%s must list at least one %s", field, item)
	} else {
		c.errorf(field, "", "missing required field %s", field)
	}
}

// at renders path[i] without fmt.
func at(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func (c *checker) checkPersonas() idSet {
	s := c.s
	var ids idSet
	seen := map[string]string{}
	check := func(path string, p Persona) {
		if path == "persona" && p == (Persona{}) && !c.bad(path) {
			c.errorf(path, "", "missing required field persona")
			return
		}
		if c.required(path+".id", p.ID, "persona id") {
			if !idPattern.MatchString(p.ID) {
				c.errorf(path+".id", "use letters, digits, '_', '-' and '.'", "invalid persona id %q", p.ID)
			}
			c.define(&ids, seen, p.ID, path+".id", "persona id")
		}
		c.required(path+".roleMessage", p.RoleMessage, "roleMessage of persona "+quoteOr(p.ID, path))
		if (p.TTSSpeed != 0 || c.given(path+".ttsSpeed") && !c.bad(path+".ttsSpeed")) && (p.TTSSpeed < minTTSSpeed || p.TTSSpeed > maxTTSSpeed) {
			c.errorf(path+".ttsSpeed", fmt.Sprintf("allowed: %g to %g", minTTSSpeed, maxTTSSpeed), "ttsSpeed %g is out of range", p.TTSSpeed)
		}
	}
	check("persona", s.Persona)
	for i, p := range s.Personas {
		check(at("personas", i), p)
	}
	return ids
}

func quoteOr(id, path string) string {
	if id != "" {
		return fmt.Sprintf("%q", id)
	}
	return path
}

func (c *checker) checkPolicies() {
	p := c.s.Policies
	if p == nil {
		return
	}
	nonNeg := func(path string, v *int) {
		if v != nil && *v < 0 {
			c.errorf(path, "", "%s must not be negative, got %d", path[strings.LastIndex(path, ".")+1:], *v)
		}
	}
	c.validateTurnTaking(p.TurnTaking)
	nonNeg("policies.maxClarifications", p.MaxClarifications)
	nonNeg("policies.timeWarningSec", p.TimeWarningSec)
	if v := p.OnExaminerFailure; v != nil && !ExaminerFailure(*v).Valid() {
		c.errorf("policies.onExaminerFailure", "allowed: offline, interrupt", "onExaminerFailure %q is not a policy", *v)
	}
	if v := p.STTMinConfidence; v != nil && (*v < 0 || *v > 1) {
		c.errorf("policies.sttMinConfidence", "allowed: 0 to 1", "sttMinConfidence %g is out of range", *v)
	}
	if g := p.Gates; g != nil {
		for _, f := range []struct {
			name string
			v    *float64
		}{{"firstSpeak", g.FirstSpeak}, {"beatHold", g.BeatHold}, {"postSpeakBuffer", g.PostSpeakBuffer}, {"userIdle", g.UserIdle}, {"userIdleTimeout", g.UserIdleTimeout}, {"speakGate", g.SpeakGate}} {
			if f.v != nil && *f.v < 0 {
				c.errorf("policies.gates."+f.name, "", "gate %s must not be negative, got %g", f.name, *f.v)
			}
		}
		idle, timeout := DefaultUserIdle, DefaultUserIdleTimeout
		if g.UserIdle != nil {
			idle = *g.UserIdle
		}
		if g.UserIdleTimeout != nil {
			timeout = *g.UserIdleTimeout
		}
		if timeout < idle {
			c.warnf("policies.gates", "", "userIdleTimeout %g is shorter than userIdle %g", timeout, idle)
		}
	}
	if sl := p.Silence; sl != nil {
		for _, f := range []struct {
			name string
			v    *float64
		}{{"checkInSec", sl.CheckInSec}, {"repeatSec", sl.RepeatSec}, {"timeoutSec", sl.TimeoutSec}} {
			if f.v != nil && *f.v < 0 {
				c.errorf("policies.silence."+f.name, "", "silence %s must not be negative, got %g", f.name, *f.v)
			}
		}
		if c.given("policies.silence.prompt") && strings.TrimSpace(sl.Prompt) == "" && !c.bad("policies.silence.prompt") {
			c.errorf("policies.silence.prompt", "leave the field out to use the default prompt", "silence prompt must not be empty")
		}
		if sl.CheckInSec != nil && *sl.CheckInSec == 0 && (sl.Enabled == nil || *sl.Enabled) {
			c.errorf("policies.silence.checkInSec", "use enabled: false to switch check-ins off", "silence checkInSec must be positive")
		}
	}
}

// checkEvidence validates the vocabulary and returns the signal types in file order.
func (c *checker) checkEvidence() idSet {
	s := c.s
	c.requireList("evidence", len(s.Evidence), "signal")
	var types idSet
	seen := map[string]string{}
	for i, e := range s.Evidence {
		path := at("evidence", i)
		if c.required(path+".signalType", e.SignalType, "signalType") {
			if !signalPattern.MatchString(e.SignalType) {
				fixed := signalIDFix(e.SignalType)
				c.errorf(path+".signalType", fmt.Sprintf("use [a-z0-9_]+: write %s", fixed), "invalid signalType %q", e.SignalType)
				if c.misspelt == nil {
					c.misspelt = map[string]string{}
				}
				c.misspelt[fixed] = e.SignalType
			}
			c.define(&types, seen, e.SignalType, path+".signalType", "signalType")
		}
		if c.required(path+".description", e.Description, "description of signal "+quoteOr(e.SignalType, path)) {
			if w := gradingWord(e.Description); w != "" {
				c.warnf(path+".description", "describe what the candidate does, not how good it is",
					"description of %s reads like a grading descriptor (%q)", quoteOr(e.SignalType, path), w)
			}
		}
		if len(e.Levels) == 0 && !c.bad(path+".levels") {
			c.errorf(path+".levels", "e.g. [description, analysis, evaluation]", "signal %s needs at least one level", quoteOr(e.SignalType, path))
		}
		c.uniqueStrings(path+".levels", e.Levels, "level")
		c.uniqueStrings(path+".cues", e.Cues, "cue")
		c.checkLevelCues(path+".levelCues", e)
	}
	// Suggestions offer valid ids only: an invalid one is reported where it is defined.
	types.list = slices.DeleteFunc(types.list, func(id string) bool { return !signalPattern.MatchString(id) })
	return types
}

// signalIDFix is id written as a valid signal id: lower case, every other character '_'.
func signalIDFix(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, id)
}

// signalHint is the hint for a reference to an undefined signal: where the valid spelling of
// an invalid signalType is to be written, or the closest signal.
func (c *checker) signalHint(sig string, signals idSet) string {
	if orig, ok := c.misspelt[sig]; ok {
		return fmt.Sprintf("the evidence list writes it %q, which is not a valid id: write %s there too", orig, sig)
	}
	return hintFor(sig, "signals", signals.list)
}

// gradingWord returns the first word of s that judges rather than describes, or "".
func gradingWord(s string) string {
	for _, w := range wordPattern.FindAllString(s, -1) {
		if gradingWords[strings.ToLower(w)] {
			return w
		}
	}
	return ""
}

// uniqueStrings reports empty and repeated entries of a string list.
func (c *checker) uniqueStrings(path string, list []string, what string) {
	seen := map[string]bool{}
	for i, v := range list {
		ip := at(path, i)
		if c.bad(ip) {
			continue
		}
		if strings.TrimSpace(v) == "" {
			c.errorf(ip, "", "empty %s", what)
			continue
		}
		if seen[v] {
			c.errorf(ip, "", "duplicate %s %q", what, v)
		}
		seen[v] = true
	}
}

// checkNodeIDs validates node ids and returns them in file order (unique ones only).
func (c *checker) checkNodeIDs() idSet {
	s := c.s
	c.requireList("nodes", len(s.Nodes), "node")
	var ids idSet
	seen := map[string]string{}
	for i, n := range s.Nodes {
		path := at("nodes", i) + ".nodeId"
		if !c.required(path, n.NodeID, "nodeId") {
			continue
		}
		if !idPattern.MatchString(n.NodeID) {
			c.errorf(path, "use letters, digits, '_', '-' and '.'", "invalid nodeId %q", n.NodeID)
		}
		if reservedNodeIDs[n.NodeID] {
			c.errorf(path, "it is the beat scope for the whole exam", "nodeId %q is reserved", n.NodeID)
		}
		c.define(&ids, seen, n.NodeID, path, "nodeId")
	}
	return ids
}

func (c *checker) checkNode(i int, signals, personas, nodeIDs idSet) {
	n := &c.s.Nodes[i]
	path := at("nodes", i)
	label := "node " + quoteOr(n.NodeID, path)

	if n.Kind == "" {
		if !c.bad(path + ".kind") {
			c.errorf(path+".kind", "allowed: "+joinNames(NodeKinds), "%s: missing required field kind", label)
		}
	} else if !n.Kind.Valid() {
		c.errorf(path+".kind", hintFor(string(n.Kind), "kinds", names(NodeKinds)), "%s: unknown kind %q", label, n.Kind)
	}
	if n.Persona != "" && !personas.has[n.Persona] {
		c.errorf(path+".persona", hintFor(n.Persona, "personas", personas.list), "%s: unknown persona %q", label, n.Persona)
	}

	switch n.Kind {
	case KindAssessment:
		// With variants, each variant must read as a whole question (checkVariants): the
		// node's own texts are only what the variants share.
		if len(n.Variants) == 0 {
			c.required(path+".scenario", n.Scenario, "scenario in assessment "+label)
			c.required(path+".conversationPrompt", n.ConversationPrompt, "conversationPrompt in assessment "+label)
			c.checkScenarioHeard(path, label, n.Scenario, n.ScenarioIntro, n.ConversationPrompt)
		}
		if len(n.EvidenceSignals) == 0 && !c.bad(path+".evidenceSignals") {
			c.errorf(path+".evidenceSignals", "", "assessment %s needs evidenceSignals", label)
		}
	case KindScaffolding, KindEnd:
		if strings.TrimSpace(n.ConversationPrompt) == "" && !c.bad(path+".conversationPrompt") {
			c.warnf(path+".conversationPrompt", "", "%s %s has no conversationPrompt", n.Kind, label)
		}
	}

	listened := map[string]bool{}
	checkSignals := func(field string, list []string) {
		seen := map[string]bool{}
		for j, sig := range list {
			sp := at(path+"."+field, j)
			if c.bad(sp) {
				continue
			}
			switch {
			case !signals.has[sig]:
				c.errorf(sp, c.signalHint(sig, signals), "%s: %s names undefined signal %q", label, field, sig)
			case seen[sig]:
				c.errorf(sp, "", "%s: duplicate signal %q in %s", label, sig, field)
			case listened[sig]:
				c.warnf(sp, "", "%s: signal %q is in both evidenceSignals and transversalSkills", label, sig)
			}
			seen[sig] = true
			listened[sig] = true
		}
	}
	checkSignals("evidenceSignals", n.EvidenceSignals)
	checkSignals("transversalSkills", n.TransversalSkills)

	for _, f := range []struct {
		name string
		v    *int
	}{{"maxFollowUps", n.MaxFollowUps}, {"maxOffTopicRedirects", n.MaxOffTopicRedirects}, {"timeBudgetSec", &n.TimeBudgetSec}} {
		if f.v != nil && *f.v < 0 {
			c.errorf(path+"."+f.name, "", "%s: %s must not be negative, got %d", label, f.name, *f.v)
		}
	}
	if total := c.s.TotalTimeBudgetSec; total > 0 && n.TimeBudgetSec > total {
		c.warnf(path+".timeBudgetSec", "", "%s: timeBudgetSec %d exceeds the exam's totalTimeBudgetSec %d", label, n.TimeBudgetSec, total)
	}
	if cp := n.CompletionPolicy; cp != nil && cp.RequiredEvidenceCount != nil {
		rp := path + ".completionPolicy.requiredEvidenceCount"
		req := *cp.RequiredEvidenceCount
		switch {
		case req < 0:
			c.errorf(rp, "", "%s: requiredEvidenceCount must not be negative, got %d", label, req)
		case n.Kind == KindAssessment && req > len(listened) && len(listened) > 0:
			c.errorf(rp, fmt.Sprintf("the node listens for %d distinct signals", len(listened)),
				"%s: requiredEvidenceCount %d can never be met", label, req)
		}
	}

	c.uniqueStrings(path+".allowedActions", n.AllowedActions, "action")
	c.uniqueStrings(path+".forbiddenActions", n.ForbiddenActions, "action")
	for j, a := range n.ForbiddenActions {
		if k := indexOf(n.AllowedActions, a); k >= 0 && strings.TrimSpace(a) != "" {
			c.errorf(at(path+".forbiddenActions", j),
				"also in allowedActions at "+c.line(at(path+".allowedActions", k)),
				"%s: action %q is both allowed and forbidden", label, a)
		}
	}

	probeKeys := slices.Sorted(maps.Keys(n.FollowUpProbes))
	var nodeSignals []string
	for _, sig := range append(append([]string(nil), n.EvidenceSignals...), n.TransversalSkills...) {
		if signals.has[sig] && !slices.Contains(nodeSignals, sig) {
			nodeSignals = append(nodeSignals, sig)
		}
	}
	for _, k := range probeKeys {
		kp := path + ".followUpProbes." + k
		if !listened[k] {
			c.add(c.keyAt(kp), Error, hintFor(k, "signals of this node", nodeSignals),
				"%s: followUpProbes key %q is not a signal of this node", label, k)
		}
		if len(n.FollowUpProbes[k]) == 0 && !c.bad(kp) {
			c.errorf(kp, "", "%s: followUpProbes.%s has no questions", label, k)
		}
		c.uniqueStrings(kp, n.FollowUpProbes[k], "probe")
	}

	c.checkSpokenTexts(path, label, n.ScenarioIntro, n.ConversationPrompt, n.FollowUpProbes, signals)
	c.checkVariants(path, label, n, listened, nodeSignals, signals)

	c.notEmpty(path+".contextStrategy", string(n.ContextStrategy), label+": contextStrategy", useDefault)
	if n.ContextStrategy != "" && !n.ContextStrategy.Valid() {
		c.errorf(path+".contextStrategy", hintFor(string(n.ContextStrategy), "strategies", names(ContextStrategies)),
			"%s: unknown contextStrategy %q", label, n.ContextStrategy)
	}

	c.notEmpty(path+".next", n.Next, label+": next", "name the node that follows, or leave next out on an end node")
	if n.Next != "" && !nodeIDs.has[n.Next] {
		c.errorf(path+".next", hintFor(n.Next, "nodes", nodeIDs.list), "%s: next names unknown node %q", label, n.Next)
	}
	seenOn := map[Reason]string{}
	for j, t := range n.Transitions {
		tp := at(path+".transitions", j)
		switch {
		case t.On == "":
			if !c.bad(tp + ".on") {
				c.errorf(tp, "allowed: "+joinNames(Reasons), "%s: transition is missing on", label)
			}
		case !t.On.Valid():
			c.errorf(tp+".on", hintFor(string(t.On), "reasons", names(Reasons)), "%s: unknown transition reason %q", label, t.On)
		default:
			if first, dup := seenOn[t.On]; dup {
				c.errorf(tp+".on", "first at "+c.line(first), "%s: duplicate transition for %s", label, t.On)
			} else {
				seenOn[t.On] = tp + ".on"
			}
		}
		switch {
		case t.To == "":
			if !c.bad(tp + ".to") {
				c.errorf(tp, "", "%s: transition is missing to", label)
			}
		case !nodeIDs.has[t.To]:
			c.errorf(tp+".to", hintFor(t.To, "nodes", nodeIDs.list), "%s: transition to unknown node %q", label, t.To)
		}
	}
	if t, ok := seenOn[ReasonSkipped]; ok && !c.skipAllowed() {
		c.warnf(t, "set policies.skipAllowed: true to use it", "%s: a skipped transition is never taken while skips are not allowed", label)
	}

	if n.Kind == KindEnd {
		if n.Next != "" {
			c.errorf(path+".next", "", "end %s must not have next", label)
		}
		if len(n.Transitions) > 0 {
			c.errorf(path+".transitions", "", "end %s must not have transitions", label)
		}
	} else if n.Kind.Valid() && n.Next == "" && !c.bad(path+".next") && !c.given(path+".next") && len(seenOn) < len(Reasons) {
		var missing []string
		for _, r := range Reasons {
			if _, ok := seenOn[r]; !ok {
				missing = append(missing, string(r))
			}
		}
		c.errorf(path+".nodeId", "reasons with no successor: "+strings.Join(missing, ", "),
			"%s %s has no next: only end nodes may omit it", n.Kind, label)
	}
}

func (c *checker) skipAllowed() bool {
	p := c.s.Policies
	return p != nil && p.SkipAllowed != nil && *p.SkipAllowed
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

func names[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

func joinNames[T ~string](list []T) string { return strings.Join(names(list), ", ") }

func (c *checker) checkFilters() {
	ov := c.s.OutputValidation
	if ov == nil {
		return
	}
	seen := map[FilterName]string{}
	for i, f := range ov.Filters {
		path := at("outputValidation.filters", i)
		if f.Name == "" {
			if !c.bad(path + ".name") {
				c.errorf(path, "allowed: "+joinNames(FilterNames), "filter is missing name")
			}
			continue
		}
		if !f.Name.Valid() {
			c.errorf(path+".name", hintFor(string(f.Name), "filters", names(FilterNames)), "unknown filter %q", f.Name)
			continue
		}
		if first, dup := seen[f.Name]; dup {
			c.errorf(path+".name", "first at "+c.line(first), "duplicate filter %q", f.Name)
		}
		seen[f.Name] = path + ".name"
		c.notEmpty(path+".action", f.Action, "filter "+string(f.Name)+": action", useDefault)
		def, _ := LookupFilter(f.Name)
		if f.Action != "" && !slices.Contains(def.Actions, f.Action) {
			c.errorf(path+".action", hintFor(f.Action, "actions for "+string(f.Name), def.Actions),
				"filter %s: unknown action %q", f.Name, f.Action)
		}
		if len(f.Patterns) > 0 && !def.Patterns {
			c.add(c.keyAt(path+".patterns"), Error, "patterns apply to "+filtersTaking(func(d FilterDef) bool { return d.Patterns }), "filter %s takes no patterns", f.Name)
		}
		c.uniqueStrings(path+".patterns", f.Patterns, "pattern")
		if c.present(path+".maxChars") && !def.MaxChars {
			c.add(c.keyAt(path+".maxChars"), Error, "maxChars applies to "+filtersTaking(func(d FilterDef) bool { return d.MaxChars }), "filter %s takes no maxChars", f.Name)
		} else if c.present(path+".maxChars") && f.MaxChars <= 0 && !c.bad(path+".maxChars") {
			c.errorf(path+".maxChars", "", "filter length: maxChars must be positive, got %d", f.MaxChars)
		}
	}
}

func (c *checker) checkBeats(nodeIDs idSet) {
	lastExam := -1 // index of the exam-scope beat with the greatest atSec
	for i, b := range c.s.Beats {
		path := at("beats", i)
		switch {
		case c.bad(path + ".atSec"):
		case !c.given(path + ".atSec"):
			// 0 is a time of its own (the start), so a missing atSec is not read as 0.
			what := "missing required field atSec of beat"
			if c.present(path + ".atSec") {
				what = "atSec of beat must be a number of seconds, not null"
			}
			c.errorf(path+".atSec", "write atSec: 0 to fire at the start", "%s", what)
		case b.AtSec < 0:
			c.errorf(path+".atSec", "", "beat atSec must not be negative, got %d", b.AtSec)
		}
		c.required(path+".message", b.Message, "message of beat")
		switch {
		case b.Scope == "":
			if !c.bad(path + ".scope") {
				c.errorf(path+".scope", "use exam or a nodeId", "missing required field scope of beat")
			}
		case b.Scope == beatScopeExam:
			if lastExam < 0 || b.AtSec >= c.s.Beats[lastExam].AtSec {
				lastExam = i
			}
			if t := c.s.TotalTimeBudgetSec; t > 0 && b.AtSec >= t {
				c.warnf(path+".atSec", "", "beat at %ds never fires: the exam ends at %ds", b.AtSec, t)
			}
		case !nodeIDs.has[b.Scope]:
			c.errorf(path+".scope", hintFor(b.Scope, "scopes", append([]string{beatScopeExam}, nodeIDs.list...)),
				"beat scope %q is neither exam nor a node", b.Scope)
		default:
			if n := c.nodeByID(b.Scope); n != nil && n.TimeBudgetSec > 0 && b.AtSec >= n.TimeBudgetSec {
				c.warnf(path+".atSec", "", "beat at %ds never fires: node %q ends at %ds", b.AtSec, b.Scope, n.TimeBudgetSec)
			}
		}
	}
	for i, b := range c.s.Beats {
		if !b.Wrapup {
			continue
		}
		path := at("beats", i) + ".wrapup"
		switch {
		case b.Scope != beatScopeExam:
			c.errorf(path, "", "only an exam-scope beat may have wrapup")
		case i != lastExam:
			c.errorf(path, fmt.Sprintf("the last exam beat is at %ds", c.s.Beats[lastExam].AtSec), "only the last exam beat may have wrapup")
		}
	}
}

func (c *checker) nodeByID(id string) *Node {
	for i := range c.s.Nodes {
		if c.s.Nodes[i].NodeID == id {
			return &c.s.Nodes[i]
		}
	}
	return nil
}

// checkLevelCues checks a signal's levelCues: every key one of its levels, every list
// non-empty, no empty or repeated phrase.
func (c *checker) checkLevelCues(path string, e EvidenceDef) {
	for _, k := range slices.Sorted(maps.Keys(e.LevelCues)) {
		kp := path + "." + k
		if !slices.Contains(e.Levels, k) {
			c.add(c.keyAt(kp), Error, hintFor(k, "levels", e.Levels),
				"signal %s: levelCues key %q is not one of its levels", quoteOr(e.SignalType, path), k)
		}
		if len(e.LevelCues[k]) == 0 && !c.bad(kp) {
			c.errorf(kp, "", "signal %s: levelCues.%s is empty", quoteOr(e.SignalType, path), k)
		}
		c.uniqueStrings(kp, e.LevelCues[k], "level cue")
	}
}

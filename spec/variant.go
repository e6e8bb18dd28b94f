package spec

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Variant is one version of a node's question: its own scenario, opening, probes and cues,
// assessing the node's evidence signals. A field left out is the node's own.
type Variant struct {
	ID                 string              `json:"id" yaml:"id"`
	Scenario           string              `json:"scenario,omitempty" yaml:"scenario,omitempty"`
	ScenarioDomain     []string            `json:"scenarioDomain,omitempty" yaml:"scenarioDomain,omitempty"`
	ScenarioIntro      string              `json:"scenarioIntro,omitempty" yaml:"scenarioIntro,omitempty"`
	ConversationPrompt string              `json:"conversationPrompt,omitempty" yaml:"conversationPrompt,omitempty"`
	FollowUpProbes     map[string][]string `json:"followUpProbes,omitempty" yaml:"followUpProbes,omitempty"`
	// Cues are extra words, per signal, that show the signal in an answer to this variant
	// (the offline examiner listens for them on top of the signal's own cues).
	Cues map[string][]string `json:"cues,omitempty" yaml:"cues,omitempty"`
}

// DrawKind is how the runtime picks a node's variant when the node is entered.
type DrawKind string

// Draw kinds (docs/exam-format.md, "Variants and draws").
const (
	// DrawRandom picks a variant from the session's seed: the same session, the same variant.
	DrawRandom DrawKind = "random"
	// DrawBalanced picks the variant this exam has used least in the session store, ties
	// broken by the seed.
	DrawBalanced DrawKind = "balanced"
	// DrawFixed always picks fixedVariant, or the first variant.
	DrawFixed DrawKind = "fixed"
)

// DrawKinds lists the draw kinds in documentation order.
var DrawKinds = []DrawKind{DrawRandom, DrawBalanced, DrawFixed}

func (d DrawKind) String() string { return string(d) }

// Valid reports whether d is a known draw kind.
func (d DrawKind) Valid() bool { return slices.Contains(DrawKinds, d) }

// CompiledVariant is a variant with the node's fields filled in where it left them out, and
// the task message the examiner gets when it is drawn.
type CompiledVariant struct {
	ID                 string              `json:"id"`
	TaskMessages       []Message           `json:"taskMessages"`
	Scenario           string              `json:"scenario,omitempty"`
	ScenarioDomain     []string            `json:"scenarioDomain,omitempty"`
	ScenarioIntro      string              `json:"scenarioIntro,omitempty"`
	ConversationPrompt string              `json:"conversationPrompt,omitempty"`
	FollowUpProbes     map[string][]string `json:"followUpProbes,omitempty"`
	Cues               map[string][]string `json:"cues,omitempty"`
}

// VariantIDs lists the node's variant ids in file order (none for a node without variants).
func (n *CompiledNode) VariantIDs() []string {
	ids := make([]string, len(n.Variants))
	for i, v := range n.Variants {
		ids[i] = v.ID
	}
	return ids
}

// WithVariant returns a copy of the node as the examiner meets it when variant id is drawn:
// the variant's texts in the controller part and its task message in the LLM part, so that
// everything reading the node (context, filters, offline examiner, silence prompts) holds only
// the drawn variant. ok is false when the node has no such variant; id "" returns n itself.
func (n *CompiledNode) WithVariant(id string) (node *CompiledNode, ok bool) {
	if id == "" {
		return n, true
	}
	i := slices.IndexFunc(n.Variants, func(v CompiledVariant) bool { return v.ID == id })
	if i < 0 {
		return nil, false
	}
	v := n.Variants[i]
	out := *n
	out.Variant = v.ID
	out.LLM.TaskMessages = v.TaskMessages
	out.Controller.Scenario = v.Scenario
	out.Controller.ScenarioDomain = v.ScenarioDomain
	out.Controller.ScenarioIntro = v.ScenarioIntro
	out.Controller.ConversationPrompt = v.ConversationPrompt
	out.Controller.FollowUpProbes = v.FollowUpProbes
	out.Controller.Cues = v.Cues
	return &out, true
}

// FixedVariant is the variant a fixed draw picks: the one the node names, else the first.
func (n *CompiledNode) FixedVariant() string {
	if n.Controller.FixedVariant != "" {
		return n.Controller.FixedVariant
	}
	if len(n.Variants) > 0 {
		return n.Variants[0].ID
	}
	return ""
}

// CuesFor returns the words that show signal in an answer at this node: the signal's own cues,
// then the drawn variant's.
func (e *Exam) CuesFor(n *CompiledNode, signal string) []string {
	var out []string
	if def := e.Signal(signal); def != nil {
		out = append(out, def.Cues...)
	}
	if n != nil {
		out = append(out, n.Controller.Cues[signal]...)
	}
	return out
}

// applyVariant returns the node as written with v's fields in place of the node's own, so the
// one task-message builder renders a variant as it renders a node.
func applyVariant(n *Node, v *Variant) *Node {
	out := *n
	if v.Scenario != "" {
		out.Scenario = v.Scenario
	}
	if len(v.ScenarioDomain) > 0 {
		out.ScenarioDomain = v.ScenarioDomain
	}
	if v.ScenarioIntro != "" {
		out.ScenarioIntro = v.ScenarioIntro
	}
	if v.ConversationPrompt != "" {
		out.ConversationPrompt = v.ConversationPrompt
	}
	if len(v.FollowUpProbes) > 0 {
		out.FollowUpProbes = v.FollowUpProbes
	}
	return &out
}

func compileVariants(n *Node, vocab map[string]*EvidenceDef, heard []string, maxFU int) []CompiledVariant {
	if len(n.Variants) == 0 {
		return nil
	}
	out := make([]CompiledVariant, 0, len(n.Variants))
	for i := range n.Variants {
		v := &n.Variants[i]
		eff := applyVariant(n, v)
		cv := CompiledVariant{
			ID:                 v.ID,
			TaskMessages:       []Message{{Role: "developer", Content: buildTaskMessage(eff, vocab, heard, maxFU)}},
			Scenario:           eff.Scenario,
			ScenarioDomain:     cloneStrings(eff.ScenarioDomain),
			ScenarioIntro:      eff.ScenarioIntro,
			ConversationPrompt: eff.ConversationPrompt,
			FollowUpProbes:     cloneLists(eff.FollowUpProbes),
			Cues:               cloneLists(v.Cues),
		}
		out = append(out, cv)
	}
	return out
}

func cloneLists(m map[string][]string) map[string][]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = cloneStrings(v)
	}
	return out
}

// checkVariants validates a node's variants and draw: ids, texts (as the node's own, through
// checkProbes and checkSpokenText), and that each variant still reads as a whole question.
func (c *checker) checkVariants(path, label string, n *Node, listened map[string]bool, nodeSignals []string, signals idSet) {
	var ids idSet
	seen := map[string]string{}
	for j := range n.Variants {
		v := &n.Variants[j]
		vp := at(path+".variants", j)
		vlabel := label + " variant " + quoteOr(v.ID, vp)
		if c.bad(vp) {
			continue // not a mapping: the decoder said so, once
		}
		if c.required(vp+".id", v.ID, "variant id") {
			if !idPattern.MatchString(v.ID) {
				c.errorf(vp+".id", "use letters, digits, '_', '-' and '.'", "%s: invalid variant id %q", label, v.ID)
			}
			c.define(&ids, seen, v.ID, vp+".id", "variant id")
		}
		eff := applyVariant(n, v)
		if n.Kind == KindAssessment {
			if strings.TrimSpace(eff.Scenario) == "" && !c.bad(vp+".scenario") {
				c.errorf(vp, "give the variant a scenario, or the node one it can share", "%s: no scenario", vlabel)
			}
			if strings.TrimSpace(eff.ConversationPrompt) == "" && !c.bad(vp+".conversationPrompt") {
				c.errorf(vp, "give the variant a conversationPrompt, or the node one it can share", "%s: no conversationPrompt", vlabel)
			}
			heardAt := vp
			if v.Scenario == "" {
				heardAt = path // the node's scenario, shared
			}
			c.checkScenarioHeard(heardAt, vlabel, eff.Scenario, eff.ScenarioIntro, eff.ConversationPrompt)
		}
		for _, f := range []struct{ field, text string }{
			{"scenario", v.Scenario}, {"scenarioIntro", v.ScenarioIntro}, {"conversationPrompt", v.ConversationPrompt},
		} {
			if c.given(vp+"."+f.field) && strings.TrimSpace(f.text) == "" && !c.bad(vp+"."+f.field) {
				c.errorf(vp+"."+f.field, "leave the field out to use the node's", "%s: %s must not be empty", vlabel, f.field)
			}
		}
		c.checkSpokenTexts(vp, vlabel, v.ScenarioIntro, v.ConversationPrompt, v.FollowUpProbes, signals)
		c.checkProbes(vp+".followUpProbes", vlabel, v.FollowUpProbes, listened, nodeSignals)
		c.checkProbes(vp+".cues", vlabel, v.Cues, listened, nodeSignals)
	}
	draw := n.Draw
	switch {
	case draw == "":
		c.notEmpty(path+".draw", string(draw), label+": draw", useDefault)
	case !draw.Valid():
		c.errorf(path+".draw", hintFor(string(draw), "draws", names(DrawKinds)), "%s: unknown draw %q", label, draw)
	case len(n.Variants) == 0:
		c.warnf(path+".draw", "list the node's variants, or leave draw out", "%s: draw %s has no variants to draw from", label, draw)
	}
	if c.given(path+".variants") && len(n.Variants) == 0 && !c.bad(path+".variants") {
		c.errorf(path+".variants", "leave variants out for a node with one question", "%s: variants must list at least one variant", label)
	}
	c.notEmpty(path+".fixedVariant", n.FixedVariant, label+": fixedVariant", "leave it out to take the first variant")
	if n.FixedVariant != "" {
		switch {
		case draw != DrawFixed:
			c.warnf(path+".fixedVariant", "set draw: fixed", "%s: fixedVariant is only read by draw: fixed", label)
		case !ids.has[n.FixedVariant] && len(n.Variants) > 0:
			c.errorf(path+".fixedVariant", hintFor(n.FixedVariant, "variants", ids.list), "%s: fixedVariant names unknown variant %q", label, n.FixedVariant)
		}
	}
	if len(n.Variants) == 1 && draw != DrawFixed {
		c.warnf(path+".variants", "add another variant, or write the texts on the node", "%s: one variant leaves nothing to draw", label)
	}
}

// checkProbes checks a map from the node's signals to texts (followUpProbes, cues): every key
// one of the node's signals, every list non-empty, no empty or repeated entry.
func (c *checker) checkProbes(path, label string, m map[string][]string, listened map[string]bool, nodeSignals []string) {
	field := path[strings.LastIndex(path, ".")+1:]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kp := path + "." + k
		if !listened[k] {
			c.add(c.keyAt(kp), Error, hintFor(k, "signals of this node", nodeSignals),
				"%s: %s key %q is not a signal of this node", label, field, k)
		}
		if len(m[k]) == 0 && !c.bad(kp) {
			c.errorf(kp, "", "%s: %s.%s is empty", label, field, k)
		}
		c.uniqueStrings(kp, m[k], strings.TrimSuffix(field, "s"))
	}
}

// checkSpokenTexts warns when a text the candidate hears (the intro, the opening, the probes)
// names an evidence signal: the rubric_leak filter would drop that sentence at run time.
func (c *checker) checkSpokenTexts(path, label, intro, prompt string, probes map[string][]string, signals idSet) {
	check := func(p, text string) {
		if sig := namedSignal(text, signals.list); sig != "" {
			c.warnf(p, "say what you want to hear in plain words: the rubric_leak filter drops a sentence naming a signal",
				"%s: the candidate would hear the signal id %q", label, sig)
		}
	}
	check(path+".scenarioIntro", intro)
	check(path+".conversationPrompt", prompt)
	for _, k := range slices.Sorted(maps.Keys(probes)) {
		for j, q := range probes[k] {
			check(at(path+".followUpProbes."+k, j), q)
		}
	}
}

// namedSignal returns the first signal id written in text as whole words (as is, or with
// spaces for '_').
func namedSignal(text string, signals []string) string {
	words := " " + strings.Join(signalWords.FindAllString(strings.ToLower(text), -1), " ") + " "
	for _, s := range signals {
		if strings.Contains(words, " "+s+" ") || strings.Contains(words, " "+strings.ReplaceAll(s, "_", " ")+" ") {
			return s
		}
	}
	return ""
}

var signalWords = regexp.MustCompile(`[a-z0-9_]+`)

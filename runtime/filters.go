package runtime

import (
	"fmt"
	"maps"
	"strings"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Canned texts and guardrail names.
const (
	descriptionNgram     = 4
	minTopicCheckWords   = 6
	minTopicContentWords = 3

	// guardrailEvidenceSufficiency names a rule of the decision trace, not a guardrail event.
	guardrailEvidenceSufficiency = "evidence_sufficiency"
)

// filterHit is one interception by the output validation pipeline.
type filterHit struct {
	Name        spec.FilterName
	Action      string
	Original    string
	Replacement string
	Detail      string
	// Reason and Phrase are the detail's parts when the filter knows them apart (why it fired,
	// the words that fired it); Detail is always set.
	Reason, Phrase string
}

// filterWhy is why a filter fired: the reason, and the words that fired it when the filter
// matched a phrase.
type filterWhy struct{ Reason, Phrase string }

func (w filterWhy) none() bool { return w.Reason == "" && w.Phrase == "" }

// String is the detail as sessions have always stored it: "REASON: PHRASE", or the reason.
func (w filterWhy) String() string {
	if w.Phrase == "" {
		return w.Reason
	}
	return w.Reason + ": " + w.Phrase
}

// plainWhy adapts a filter whose detail is one sentence (no phrase apart).
func plainWhy(fn func(text, norm string) (string, string, bool)) func(text, norm string) (string, filterWhy, bool) {
	return func(text, norm string) (string, filterWhy, bool) {
		out, detail, hit := fn(text, norm)
		return out, filterWhy{Reason: detail}, hit
	}
}

// nodeFilters holds a node's filter data, normalized once when the controller is built so the
// per-turn pipeline does no allocation-heavy preparation.
type nodeFilters struct {
	lv           *langVocab // the exam's language (filter_lang.go)
	personaBreak []string
	leading      []string
	rubricWords  []string
	vocab        *examVocab        // the whole exam's vocabulary, shared by every node
	descNgrams   map[string]string // n-gram → signal type
	domain       []string
	topicWords   map[string]bool
	prompt       string
	enabled      map[spec.FilterName]bool
	action       map[spec.FilterName]string
	maxChars     int
	integrity    []integrityFilter // the always-on guardrails, with the language's verdict detector
}

// buildFilters builds every node's filters of exam in the shipped pack of its language and that
// pack's vocabulary (tests; the controller uses buildFiltersIn with the pack it runs in).
func buildFilters(exam *spec.Exam) map[string]*nodeFilters {
	p, err := lang.Lookup(exam.Language)
	if err != nil {
		p = lang.English()
	}
	return buildFiltersIn(exam, p, vocabularyFor(p))
}

// buildFiltersIn builds every node's filters of exam in a language pack, with the exam's
// vocabulary built once and shared, and the always-on guardrails judging verdicts with words's
// detector plus the pack's verdict and praise phrases.
func buildFiltersIn(exam *spec.Exam, p *lang.Pack, words *Vocabulary) map[string]*nodeFilters {
	vocab := buildExamVocab(exam)
	lv := langVocabFor(p)
	integrity := lv.integrityFns(words.verdictIndex())
	out := make(map[string]*nodeFilters, len(exam.Nodes))
	for i := range exam.Nodes {
		n := &exam.Nodes[i]
		out[filterKey(n.NodeID, "")] = buildNodeFiltersWith(exam, n, vocab, lv, integrity)
		// Each variant has its own topic words and opening: the filters of the drawn one run.
		for _, id := range n.VariantIDs() {
			view, _ := n.WithVariant(id)
			out[filterKey(n.NodeID, id)] = buildNodeFiltersWith(exam, view, vocab, lv, integrity)
		}
	}
	return out
}

// filterKey names a node's filters, per drawn variant.
func filterKey(nodeID, variant string) string {
	if variant == "" {
		return nodeID
	}
	return nodeID + "\x00" + variant
}

// filtersFor returns the filters of node nodeID as the exam is in it: the drawn variant's when
// it is the current node. Caller holds mu.
func (c *Controller) filtersFor(nodeID string) *nodeFilters {
	if c.node != nil && c.node.NodeID == nodeID {
		// A live reload may have dropped the variant: the node's own filters still run.
		if nf := c.filters[filterKey(nodeID, c.node.Variant)]; nf != nil {
			return nf
		}
	}
	return c.filters[filterKey(nodeID, "")]
}

// buildNodeFilters builds one node's filters on its own (tests); the controller uses
// buildFilters.
func buildNodeFilters(exam *spec.Exam, node *spec.CompiledNode) *nodeFilters {
	lv := langVocabFor(nil)
	return buildNodeFiltersWith(exam, node, buildExamVocab(exam), lv, lv.integrityFns(defaultVocabulary.verdictIndex()))
}

func buildNodeFiltersWith(exam *spec.Exam, node *spec.CompiledNode, vocab *examVocab, lv *langVocab, integrity []integrityFilter) *nodeFilters {
	nf := &nodeFilters{
		lv:         lv,
		integrity:  integrity,
		vocab:      vocab,
		descNgrams: map[string]string{},
		topicWords: map[string]bool{},
		enabled:    map[spec.FilterName]bool{},
		action:     map[spec.FilterName]string{},
		maxChars:   spec.DefaultMaxChars,
		prompt:     node.Controller.ConversationPrompt,
	}
	// An exam compiled without filter data (an older IR) gets the table's defaults.
	personaPatterns, leadingPatterns := spec.DefaultPatterns(spec.FilterPersonaBreak), spec.DefaultPatterns(spec.FilterLeadingQuestion)
	for _, name := range append(IntegrityFilters, FilterOneQuestion) {
		nf.enabled[name] = true // always on: forbidden actions are never up to the author
	}
	for _, name := range spec.FilterNames {
		nf.enabled[name] = true
		f := exam.Filter(name)
		if f == nil {
			continue
		}
		nf.enabled[name] = f.Enabled
		nf.action[name] = f.Action
		switch name {
		case spec.FilterPersonaBreak:
			if len(f.Patterns) > 0 {
				personaPatterns = f.Patterns
			}
		case spec.FilterLeadingQuestion:
			if len(f.Patterns) > 0 {
				leadingPatterns = f.Patterns
			}
		case spec.FilterLength:
			if f.MaxChars > 0 {
				nf.maxChars = f.MaxChars
			}
		}
	}
	// The author's patterns, then the built-ins of English and of the exam's language.
	nf.personaBreak = union(personaPatterns, lv.personaBreak)
	nf.leading = union(leadingPatterns, lv.leading)
	nf.rubricWords = lv.rubric
	signals := append(append([]string{}, node.Controller.EvidenceSignals...), node.Controller.TransversalSkills...)
	for _, st := range signals {
		def := exam.Signal(st)
		if def == nil {
			continue
		}
		words := strings.Fields(normalizeWords(def.Description))
		for i := 0; i+descriptionNgram <= len(words); i++ {
			nf.descNgrams[strings.Join(words[i:i+descriptionNgram], " ")] = st
		}
	}
	for _, d := range node.Controller.ScenarioDomain {
		nf.domain = append(nf.domain, normPhrase(d))
	}
	addTopic := func(s string) {
		for _, w := range strings.Fields(normalizeWords(s)) {
			if len(w) >= 4 && !lv.procedural(w) {
				nf.topicWords[stem(w)] = true
			}
		}
	}
	c := node.Controller
	addTopic(c.Scenario)
	addTopic(c.ScenarioIntro)
	addTopic(c.ConversationPrompt)
	for _, d := range c.ScenarioDomain {
		addTopic(d)
	}
	for _, probes := range c.FollowUpProbes {
		for _, p := range probes {
			addTopic(p)
		}
	}
	return nf
}

// withInstructionTopic is nf with the words of the supervising examiner's instructions being
// applied counted as the node's topic: a question they asked for ("Ask how the plan fits the
// budget.") is on topic because they asked for it. Without it, one_question leaving that
// question alone in a line made topic_containment replace it with a redirect.
func (nf *nodeFilters) withInstructionTopic(instructions []string) *nodeFilters {
	if len(instructions) == 0 || len(nf.domain) == 0 {
		return nf
	}
	cp := *nf
	cp.topicWords = maps.Clone(nf.topicWords)
	for _, in := range instructions {
		for _, w := range strings.Fields(normalizeWords(in)) {
			if len(w) >= 4 && !nf.lv.procedural(w) {
				cp.topicWords[stem(w)] = true
			}
		}
	}
	return &cp
}

// stem is a deliberately crude plural stripper: topic overlap only needs "queues" ≈ "queue".
func stem(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// maxFilterPasses bounds the fixed-point loop of runFilters. A pass can only drop, shorten or
// replace with a fixed line, so real replies settle in two passes; the bound is for safety.
const maxFilterPasses = 4

// runFilters is the one validation of everything the candidate hears: it runs the pipeline
// (filterPass) again on its own output until a pass changes nothing, so whatever one filter
// removed or rewrote, every filter has seen the final text (a sentence left after rubric_leak
// dropped its neighbour, a rewritten leading question that outgrew maxChars). It returns the
// validated text, its parts (the length filter's split) and every interception once: a later
// pass reports only the filters that changed the text again. If the passes do not settle, the
// neutral follow-up is said instead (it passes every filter).
func (nf *nodeFilters) runFilters(text string) (string, []string, []filterHit) {
	return nf.run(text, true)
}

// runOwnFilters is runFilters for a line the examiner model did not write: the controller's
// own (an author's intro or prompt, a canned line, a notice) or one the supervising examiner
// chose to say (/say). topic_containment judges the model's drift from the scenario, so it is
// left out: a node's own text is its topic, and a procedural line ("Sorry, the examiner lost
// the connection for a moment and is back now.") must not become a redirect. Every other
// filter applies.
func (nf *nodeFilters) runOwnFilters(text string) (string, []string, []filterHit) {
	return nf.run(text, false)
}

func (nf *nodeFilters) run(text string, topic bool) (string, []string, []filterHit) {
	var hits []filterHit
	for pass := 0; pass < maxFilterPasses; pass++ {
		out, parts, h := nf.filterPass(text, topic)
		if pass == 0 {
			hits = h
		} else {
			for _, x := range h {
				if x.Replacement != x.Original {
					hits = append(hits, x)
				}
			}
		}
		if out == text {
			return out, parts, hits
		}
		text = out
	}
	neutral := nf.lv.line(lang.LineNeutralFollowUp)
	unsettled := fmt.Sprintf("the filters did not settle in %d passes: neutral follow-up", maxFilterPasses)
	hits = append(hits, filterHit{Name: spec.FilterRubricLeak, Action: "replace", Original: text, Replacement: neutral,
		Detail: unsettled, Reason: unsettled})
	return neutral, []string{neutral}, hits
}

// filterPass passes text once through the output filters in pipeline order and returns the
// validated text (split into parts when the length filter splits) and every interception.
func (nf *nodeFilters) filterPass(text string, topic bool) (string, []string, []filterHit) {
	var hits []filterHit
	// Every filter matches on the normalized text; it is computed again only when a filter
	// rewrote the text, not once per filter.
	norm := normalizeWords(text)
	apply := func(name spec.FilterName, defAction string, fn func(text, norm string) (string, filterWhy, bool)) {
		if !nf.enabled[name] {
			return
		}
		out, why, hit := fn(text, norm)
		if !hit {
			return
		}
		if out != text {
			norm = normalizeWords(out)
		}
		action := nf.action[name]
		if action == "" {
			action = defAction
		}
		hits = append(hits, filterHit{Name: name, Action: action, Original: text, Replacement: out, Detail: why.String(),
			Reason: why.Reason, Phrase: why.Phrase})
		text = out
	}
	apply(spec.FilterPersonaBreak, "replace", plainWhy(nf.personaBreakFilter))
	apply(spec.FilterRubricLeak, "intercept", plainWhy(nf.rubricLeakFilter))
	nf.runIntegrityFilters(apply)
	if topic {
		apply(spec.FilterTopicContainment, "redirect", plainWhy(nf.topicFilter))
	}
	apply(FilterOneQuestion, "keep_first", plainWhy(nf.lv.questionRules.oneQuestionFilter))
	var parts []string
	if nf.enabled[spec.FilterLength] {
		action := nf.action[spec.FilterLength]
		if action == "" {
			action = "summarize"
		}
		if out, ps, detail, hit := nf.lengthFilter(text, action); hit {
			hits = append(hits, filterHit{Name: spec.FilterLength, Action: action, Original: text, Replacement: out, Detail: detail, Reason: detail})
			if out != text {
				norm = normalizeWords(out)
			}
			text, parts = out, ps
		}
	}
	apply(spec.FilterLeadingQuestion, "rephrase", plainWhy(nf.leadingFilter))
	if len(parts) == 0 || len(hits) > 0 && hits[len(hits)-1].Name == spec.FilterLeadingQuestion {
		// Every part keeps to maxChars, also after a rewrite that followed a split.
		parts = []string{text}
		if nf.enabled[spec.FilterLength] && nf.lengthAction() == "split" {
			parts = nf.fitParts(text)
		}
	}
	return text, parts, hits
}

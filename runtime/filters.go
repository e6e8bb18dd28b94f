package runtime

import (
	"fmt"
	"strings"

	"github.com/examtui/examtui/spec"
)

// Default filter data (pipecat-adapter §8) used when the compiled exam carries none.
var (
	defaultPersonaBreakPatterns = []string{"as your examiner", "according to the rubric", "i'm an ai", "the grading criteria"}
	// builtinPersonaBreak is always checked: these never belong in an examiner's mouth.
	builtinPersonaBreak    = []string{"as an ai", "i am an ai", "language model", "i'm a bot", "i am a bot", "my instructions", "my system prompt"}
	defaultLeadingPatterns = []string{"wouldn't you say", "don't you think", "surely you'd agree"}
	builtinLeading         = []string{"wouldn't you agree", "don't you agree", "isn't it true that", "isn't it obvious", "you'd agree that", "surely you"}
	rubricWords            = []string{"rubric", "grading", "graded", "marking scheme", "mark scheme", "assessment criteria", "marking criteria", "evidence signal", "evidence signals"}
	judgingReassurance     = []string{"you're doing great", "good answer", "that's correct", "excellent", "well done", "you're on the right track", "great answer", "perfect answer", "that's right", "spot on"}
	stopwords              = map[string]bool{"that": true, "this": true, "with": true, "what": true, "would": true, "could": true, "should": true, "about": true, "your": true, "have": true, "there": true, "their": true, "they": true, "from": true, "when": true, "which": true, "will": true, "were": true, "been": true, "more": true, "some": true, "then": true, "than": true, "into": true, "just": true, "also": true, "tell": true, "like": true, "think": true, "know": true, "here": true, "well": true, "very": true, "much": true, "does": true, "make": true, "take": true, "time": true, "give": true, "please": true, "thank": true, "thanks": true, "little": true, "something": true, "anything": true, "again": true, "question": true, "answer": true, "continue": true}
)

// Canned texts and guardrail names.
const (
	neutralFollowUp      = "Could you tell me a little more about that?"
	neutralQuestion      = "What is your view on that?"
	calmSupportText      = "Take your time. Would you like me to repeat the question?"
	topicRedirectPrefix  = "Let's stay with the situation we are discussing."
	descriptionNgram     = 4
	minTopicCheckWords   = 6
	minTopicContentWords = 3

	guardrailActionOutput        = "output_intercepted"
	guardrailActionTransition    = "transition"
	guardrailActionReplace       = "replaced"
	guardrailTimeBudget          = "time_budget"
	guardrailFollowUpLimit       = "followup_limit"
	guardrailOffTopicLimit       = "off_topic_limit"
	guardrailDistress            = "distress"
	guardrailEvidenceSufficiency = "evidence_sufficiency"
)

// guardrailAnxietyNeutrality names the anxiety guardrail; typed as a filter name because its
// interception travels as a filterHit.
const guardrailAnxietyNeutrality spec.FilterName = "anxiety_neutrality"

// filterHit is one interception by the output validation pipeline.
type filterHit struct {
	Name        spec.FilterName
	Action      string
	Original    string
	Replacement string
	Detail      string
}

// nodeFilters holds a node's filter data, normalized once when the controller is built so the
// per-turn pipeline does no allocation-heavy preparation.
type nodeFilters struct {
	personaBreak []string
	leading      []string
	rubricWords  []string
	rubricIDs    []string
	rubricLevels []string
	descNgrams   map[string]string // n-gram → signal type
	domain       []string
	topicWords   map[string]bool
	prompt       string
	enabled      map[spec.FilterName]bool
	action       map[spec.FilterName]string
	maxChars     int
}

func buildNodeFilters(exam *spec.Exam, node *spec.CompiledNode) *nodeFilters {
	nf := &nodeFilters{
		descNgrams: map[string]string{},
		topicWords: map[string]bool{},
		enabled:    map[spec.FilterName]bool{},
		action:     map[spec.FilterName]string{},
		maxChars:   spec.DefaultMaxChars,
		prompt:     node.Controller.ConversationPrompt,
	}
	personaPatterns, leadingPatterns := defaultPersonaBreakPatterns, defaultLeadingPatterns
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
	for _, p := range append(append([]string{}, personaPatterns...), builtinPersonaBreak...) {
		nf.personaBreak = append(nf.personaBreak, normPhrase(p))
	}
	for _, p := range append(append([]string{}, leadingPatterns...), builtinLeading...) {
		nf.leading = append(nf.leading, normPhrase(p))
	}
	for _, p := range rubricWords {
		nf.rubricWords = append(nf.rubricWords, normPhrase(p))
	}
	signals := append(append([]string{}, node.Controller.EvidenceSignals...), node.Controller.TransversalSkills...)
	levels := map[string]bool{}
	for _, st := range signals {
		nf.rubricIDs = append(nf.rubricIDs, normPhrase(st))
		def := exam.Signal(st)
		if def == nil {
			continue
		}
		for _, l := range def.Levels {
			levels[l] = true
		}
		words := strings.Fields(normalizeWords(def.Description))
		for i := 0; i+descriptionNgram <= len(words); i++ {
			nf.descNgrams[strings.Join(words[i:i+descriptionNgram], " ")] = st
		}
	}
	for _, def := range exam.Evidence {
		for _, l := range def.Levels {
			if levels[l] {
				n := normPhrase(l)
				nf.rubricLevels = append(nf.rubricLevels, n+" level", "level of "+n, "level "+n)
				delete(levels, l)
			}
		}
	}
	for _, d := range node.Controller.ScenarioDomain {
		nf.domain = append(nf.domain, normPhrase(d))
	}
	addTopic := func(s string) {
		for _, w := range strings.Fields(normalizeWords(s)) {
			if len(w) >= 4 && !stopwords[w] {
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

// stem is a deliberately crude plural stripper: topic overlap only needs "queues" ≈ "queue".
func stem(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// runFilters passes text through the output filters in pipeline order and returns the
// validated text (split into parts when the length filter splits) and every interception.
func (nf *nodeFilters) runFilters(text string) (string, []string, []filterHit) {
	var hits []filterHit
	apply := func(name spec.FilterName, defAction string, fn func(string) (string, string, bool)) {
		if !nf.enabled[name] {
			return
		}
		out, detail, hit := fn(text)
		if !hit {
			return
		}
		action := nf.action[name]
		if action == "" {
			action = defAction
		}
		hits = append(hits, filterHit{Name: name, Action: action, Original: text, Replacement: out, Detail: detail})
		text = out
	}
	apply(spec.FilterPersonaBreak, "replace", nf.personaBreakFilter)
	apply(spec.FilterRubricLeak, "intercept", nf.rubricLeakFilter)
	apply(spec.FilterTopicContainment, "redirect", nf.topicFilter)
	var parts []string
	if nf.enabled[spec.FilterLength] {
		action := nf.action[spec.FilterLength]
		if action == "" {
			action = "summarize"
		}
		if out, ps, detail, hit := nf.lengthFilter(text, action); hit {
			hits = append(hits, filterHit{Name: spec.FilterLength, Action: action, Original: text, Replacement: out, Detail: detail})
			text, parts = out, ps
		}
	}
	apply(spec.FilterLeadingQuestion, "rephrase", nf.leadingFilter)
	if len(parts) == 0 || len(hits) > 0 && hits[len(hits)-1].Name == spec.FilterLeadingQuestion {
		parts = []string{text}
	}
	return text, parts, hits
}

// dropSentences removes the sentences for which bad returns a reason; it returns what is left
// and the first reason.
func dropSentences(text string, bad func(norm string) string) (string, string) {
	var kept []string
	first := ""
	for _, s := range SplitSentences(text) {
		if why := bad(normalizeWords(s)); why != "" {
			if first == "" {
				first = why
			}
			continue
		}
		kept = append(kept, s)
	}
	return strings.Join(kept, " "), first
}

func firstMatch(norm string, phrases []string) string {
	for _, p := range phrases {
		if containsNorm(norm, p) {
			return p
		}
	}
	return ""
}

func (nf *nodeFilters) personaBreakFilter(text string) (string, string, bool) {
	if firstMatch(normalizeWords(text), nf.personaBreak) == "" {
		return text, "", false
	}
	kept, why := dropSentences(text, func(n string) string { return firstMatch(n, nf.personaBreak) })
	if !hasQuestion(kept) {
		kept = strings.TrimSpace(kept + " " + neutralFollowUp)
	}
	return kept, fmt.Sprintf("matched %q", why), true
}

func (nf *nodeFilters) rubricLeak(norm string) string {
	if m := firstMatch(norm, nf.rubricWords); m != "" {
		return "rubric word " + m
	}
	for _, id := range nf.rubricIDs {
		if strings.Contains(id, " ") && containsNorm(norm, id) {
			return "signal id " + strings.ReplaceAll(id, " ", "_")
		}
	}
	if m := firstMatch(norm, nf.rubricLevels); m != "" {
		return "level name " + m
	}
	if len(nf.descNgrams) > 0 {
		if st := nf.descNgramIn(norm); st != "" {
			return "description of " + st
		}
	}
	return ""
}

// descNgramIn looks up every run of descriptionNgram words of a normalized text (" w1 w2 … ")
// in the description n-grams without building new strings.
func (nf *nodeFilters) descNgramIn(norm string) string {
	var starts [descriptionNgram + 1]int // word start offsets in a ring
	n := 0
	for i := 1; i < len(norm); i++ {
		if norm[i-1] != ' ' || norm[i] == ' ' {
			continue
		}
		starts[n%(descriptionNgram+1)] = i
		n++
		if n > descriptionNgram {
			from := starts[(n-descriptionNgram-1)%(descriptionNgram+1)]
			if st, ok := nf.descNgrams[norm[from:i-1]]; ok {
				return st
			}
		}
	}
	if n >= descriptionNgram {
		from := starts[(n-descriptionNgram)%(descriptionNgram+1)]
		if st, ok := nf.descNgrams[norm[from:len(norm)-1]]; ok {
			return st
		}
	}
	return ""
}

func (nf *nodeFilters) rubricLeakFilter(text string) (string, string, bool) {
	if nf.rubricLeak(normalizeWords(text)) == "" {
		return text, "", false
	}
	kept, why := dropSentences(text, nf.rubricLeak)
	if !hasQuestion(kept) {
		kept = strings.TrimSpace(kept + " " + neutralFollowUp)
	}
	return kept, why, true
}

func (nf *nodeFilters) topicFilter(text string) (string, string, bool) {
	if len(nf.domain) == 0 {
		return text, "", false
	}
	norm := normalizeWords(text)
	words := strings.Fields(norm)
	if len(words) < minTopicCheckWords {
		return text, "", false
	}
	if firstMatch(norm, nf.domain) != "" {
		return text, "", false
	}
	content := 0
	for _, w := range words {
		if len(w) < 4 || stopwords[w] {
			continue
		}
		if nf.topicWords[stem(w)] {
			return text, "", false
		}
		content++
	}
	// Generic lines ("Could you tell me a little more about that?") carry no topic to judge.
	if content < minTopicContentWords {
		return text, "", false
	}
	out := topicRedirectPrefix
	if nf.prompt != "" {
		out += " " + nf.prompt
	}
	return out, "no term of the node's scenarioDomain or scenario", true
}

func (nf *nodeFilters) lengthFilter(text, action string) (string, []string, string, bool) {
	n := len([]rune(text))
	if n <= nf.maxChars {
		return text, nil, "", false
	}
	detail := fmt.Sprintf("%d characters > maxChars %d", n, nf.maxChars)
	if action == "split" {
		parts := splitToFit(text, nf.maxChars)
		return text, parts, detail, true
	}
	parts := splitToFit(text, nf.maxChars)
	return parts[0], nil, detail, true
}

// splitToFit groups whole sentences into chunks of at most max runes; a sentence longer than
// max is cut at a word boundary.
func splitToFit(text string, max int) []string {
	var parts []string
	cur := ""
	for _, s := range SplitSentences(text) {
		for len([]rune(s)) > max {
			head := cutAtWord(s, max)
			if cur != "" {
				parts = append(parts, cur)
				cur = ""
			}
			parts = append(parts, head)
			s = strings.TrimSpace(string([]rune(s)[len([]rune(head)):]))
		}
		if s == "" {
			continue
		}
		switch {
		case cur == "":
			cur = s
		case len([]rune(cur))+1+len([]rune(s)) <= max:
			cur += " " + s
		default:
			parts = append(parts, cur)
			cur = s
		}
	}
	if cur != "" {
		parts = append(parts, cur)
	}
	if len(parts) == 0 {
		parts = []string{TruncateRunes(text, max)}
	}
	return parts
}

func cutAtWord(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	cut := max
	for i := max; i > max/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimSpace(string(r[:cut]))
}

func (nf *nodeFilters) leadingFilter(text string) (string, string, bool) {
	if firstMatch(normalizeWords(text), nf.leading) == "" {
		return text, "", false
	}
	var out []string
	why := ""
	replaced := false
	for _, s := range SplitSentences(text) {
		if m := firstMatch(normalizeWords(s), nf.leading); m != "" {
			if why == "" {
				why = fmt.Sprintf("matched %q", m)
			}
			if !replaced {
				out = append(out, neutralQuestion)
				replaced = true
			}
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, " "), why, true
}

func hasQuestion(s string) bool { return strings.Contains(s, "?") }

// neutralizeReassurance replaces spoken text that judges the answer while the candidate is
// anxious (POL-008: prompting must neither discourage nor reassure).
func neutralizeReassurance(text string) (string, string, bool) {
	norm := normalizeWords(text)
	for _, p := range judgingReassurance {
		if containsPhrase(norm, p) {
			return calmSupportText, fmt.Sprintf("judging reassurance %q", p), true
		}
	}
	return text, "", false
}

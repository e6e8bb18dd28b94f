package runtime

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// decide runs the decision order on one examiner reply. Caller holds mu. The decision is
// planned first without side effects, the observation event (raw report, decision, trace,
// latency) is emitted, and then the plan is carried out, so every turn reads in the stream as
// transcript → observation → its consequences.
func (c *Controller) decide(in *turnInput) {
	node := c.node
	nf := c.filtersFor(node.NodeID)
	planStart := time.Now()
	var (
		obs      Observation
		problems []string
		perr     error
		raw      []byte
	)
	switch {
	case in.callErr != nil:
		perr = fmt.Errorf("examiner %s: %w", c.ex.Name(), in.callErr)
	case in.reply == nil || len(in.reply.Arguments) == 0:
		perr = ErrNoToolCall
	default:
		raw = in.reply.Arguments
		obs, problems, perr = ParseObservation(raw, node, c.exam)
	}
	valid := perr == nil
	trace := []DecisionStep{{Rule: "validate", Fired: !valid, Detail: errDetail(perr, problems)}}
	cmd, src, why := arbitrateCommand(valid, obs, in.safety)
	trace = append(trace, DecisionStep{Rule: "command", Fired: cmd != "", Detail: strings.TrimSpace(cmd.String() + " " + src.String() + " " + why)})
	var p *plan
	var dec Decision
	switch {
	case cmd != "":
		dec = c.commandDecision(cmd)
	case !valid:
		dec = Decision{Action: DecisionContinue, Reason: "fallback"}
	default:
		p = c.plan(in, obs, nf)
		trace = append(trace, p.trace...)
		dec = p.dec
	}
	dec.Trace = trace

	lat := in.latency
	if in.reply != nil {
		lat.LLMFirstTokenMs = ms(in.reply.FirstToken)
		lat.LLMCompleteMs = ms(in.reply.Complete)
	}
	if lat.LLMCompleteMs == 0 {
		lat.LLMCompleteMs = ms(in.callDur)
	}
	lat.FiltersMs = ms(time.Since(planStart))
	toSpeech := lat.LLMCompleteMs
	if in.stream.firstSpoken > 0 {
		toSpeech = ms(in.stream.firstSpoken)
	}
	lat.TotalMs = lat.EndpointingMs + lat.STTMs + toSpeech + lat.FiltersMs + lat.TTSFirstByteMs
	op := &ObservationPayload{NodeID: node.NodeID, Turn: in.turn, Examiner: c.ex.Name(), Raw: rawForEvent(raw), Valid: valid,
		Problems: problems, Decision: dec, Latency: lat, Usage: c.replyUsage(in.reply, node.NodeID), Settles: c.settlesWith("")}
	c.emit(op)

	if !valid {
		code := CodeObservationInvalid
		if in.callErr != nil || in.reply == nil || len(in.reply.Arguments) == 0 {
			code = CodeExaminerFailed
		}
		c.emit(&SystemErrorPayload{Code: code, Message: perr.Error(), NodeID: node.NodeID})
		c.log.Warn("observation rejected", "node", node.NodeID, "turn", in.turn, "err", perr)
	} else if len(problems) > 0 {
		c.log.Info("observation repaired", "node", node.NodeID, "turn", in.turn, "problems", problems)
	}
	c.settleObservation(op)
	c.applySettles(op.Settles)
	if !valid {
		c.notAssessed(node.NodeID, in.turn, in.seg.id, in.text, NotAssessedExaminerFailed, perr.Error())
	}
	// A reply the controller had to reject whole (malformed arguments) fails the turn as surely
	// as an error or a missing call: each ends in the canned line (or the command the candidate
	// asked for), and the exam would not move.
	if c.examinerGaveUp(!valid, in.callDur, perr) {
		return
	}
	switch {
	case cmd != "":
		if valid && (len(obs.Signals) > 0 || len(obs.Misconceptions) > 0) {
			// Evidence reported in the same turn as a command is kept, never discarded.
			accepted, rejected, _ := c.evidenceStep(in, obs)
			c.recordEvidence(in, accepted, rejected, obs.Misconceptions)
		}
		c.dispatchCommand(cmd, src, obs, valid)
	case !valid:
		c.speak(c.fallbackLine(c.lastQuestion), SpokenFallback, false)
	default:
		c.apply(in, p)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func errDetail(err error, problems []string) string {
	var parts []string
	if err != nil {
		parts = append(parts, err.Error())
	}
	if len(problems) > 0 {
		parts = append(parts, fmt.Sprintf("%d problem(s) repaired", len(problems)))
	}
	return strings.Join(parts, "; ")
}

// fallbackLine is the canned line for a malformed or missing examiner reply.
func (c *Controller) fallbackLine(question string) string {
	if question == "" {
		return c.line(lang.LineSayAgain)
	}
	return c.lineThen(lang.LineAskAgain, question)
}

// plan is what one valid, non-command observation leads to (decision steps 3–6), computed
// without side effects.
type plan struct {
	dec         Decision
	trace       []DecisionStep
	obs         Observation
	hits        []filterHit
	text        string
	parts       []string
	accepted    []LedgerEntry
	rejected    []RecoveryPayload
	reason      spec.Reason
	offTopic    bool
	anxiety     bool
	anxietyHit  *filterHit
	followUp    bool
	followUpTyp string
}

// plan evaluates steps 3–6 for a valid, non-command observation.
func (c *Controller) plan(in *turnInput, obs Observation, nf *nodeFilters) *plan {
	node := c.node
	p := &plan{obs: obs}
	// 3. Output validation.
	p.text, p.parts, p.hits = c.outputFilters(nf, obs.SpokenText)
	p.trace = append(p.trace, DecisionStep{Rule: "output_filters", Fired: len(p.hits) > 0, Detail: filterNames(p.hits)})

	// 4. Evidence: dedupe, STT provenance.
	var dups int
	p.accepted, p.rejected, dups = c.evidenceStep(in, obs)
	p.trace = append(p.trace, DecisionStep{Rule: "evidence", Fired: len(p.accepted) > 0,
		Detail: fmt.Sprintf("accepted %d, rejected %d (stt), duplicate %d, misconceptions %d", len(p.accepted), len(p.rejected), dups, len(obs.Misconceptions))})

	// 5. Guardrails, in order; the first transition wins.
	have := len(c.ledger.Covered(node.NodeID, node.Controller.EvidenceSignals))
	for _, e := range p.accepted {
		if e.Target() {
			have++
		}
	}
	p.offTopic = obs.AnswerQuality == QualityOffTopic
	offTopic := c.offTopic
	if p.offTopic {
		offTopic++
	}
	reason, steps := c.checkGuardrails(obs, offTopic, have)
	p.trace = append(p.trace, steps...)
	if reason != "" {
		p.reason = reason
		next, _ := node.Successor(reason)
		p.dec = Decision{Action: DecisionTransition, Reason: reason.String(), NextNode: next}
		return p
	}
	if obs.AnxietyDetected {
		p.anxiety = true
		// Judged on what the examiner wanted to say: the judging words may already have been
		// filtered out, but an anxious candidate still gets neutral procedural support.
		if out, detail, hit := langVocabFor(c.lang).neutralizeReassurance(obs.SpokenText); hit {
			p.anxietyHit = &filterHit{Name: guardrailAnxietyNeutrality, Action: GuardrailReplaced.String(), Original: p.text, Replacement: out, Detail: detail}
			p.text, p.parts = out, []string{out}
		}
	}
	p.trace = append(p.trace, DecisionStep{Rule: guardrailAnxietyNeutrality.String(), Fired: p.anxietyHit != nil, Detail: boolDetail(obs.AnxietyDetected, "anxiety detected")})

	// 6. Act: follow-up or continue.
	if obs.NeedsFollowUp {
		p.followUp = true
		p.followUpTyp = obs.FollowUpType
		if p.followUpTyp == "" {
			p.followUpTyp = "probe"
		}
		p.dec = Decision{Action: DecisionFollowUp, Reason: p.followUpTyp}
	} else {
		p.dec = Decision{Action: DecisionContinue}
	}
	return p
}

func boolDetail(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

// apply carries out a plan: guardrail events, ledger writes, then the transition or the reply.
func (c *Controller) apply(in *turnInput, p *plan) {
	node := c.node
	c.emitIntercepts(node.NodeID, p.hits)
	c.recordEvidence(in, p.accepted, p.rejected, p.obs.Misconceptions)
	if p.offTopic {
		c.offTopic++
	}
	if p.reason != "" {
		if g := reasonGuardrail(p.reason); g != "" {
			c.emit(&GuardrailTriggeredPayload{Guardrail: g, NodeID: node.NodeID, Action: GuardrailTransition,
				OriginalText: p.obs.SpokenText, Detail: p.reason.String()})
		}
		c.transition(p.reason)
		return
	}
	if p.anxiety {
		if h := p.anxietyHit; h != nil {
			c.emit(&GuardrailTriggeredPayload{Guardrail: h.Name.String(), NodeID: node.NodeID, Action: GuardrailReplaced,
				OriginalText: h.Original, ReplacementText: h.Replacement, Detail: h.Detail})
		}
		c.emit(&RecoveryPayload{Kind: RecoveryCalmSupport, NodeID: node.NodeID, Detail: "anxiety detected"})
	}
	if p.followUp {
		c.followUps++
		c.emit(&FollowUpIssuedPayload{NodeID: node.NodeID, FollowUpType: p.followUpTyp, Count: c.followUps,
			Max: node.Controller.MaxFollowUps, Text: p.text})
	}
	text, parts := p.text, p.parts
	if strings.TrimSpace(text) == "" {
		text = c.lastQuestion
		parts = []string{text}
	}
	c.replySaying()
	c.speakValidated(in.stream, text, parts, len(p.hits) > 0 || p.anxietyHit != nil)
}

// speakValidated says the validated reply, skipping the sentences already streamed.
func (c *Controller) speakValidated(st *streamState, text string, parts []string, intercepted bool) {
	if st == nil || len(st.emitted) == 0 {
		for i, p := range parts {
			c.speakPart(p, SpokenExaminer, intercepted, i, false)
		}
		return
	}
	sentences := SplitSentences(text)
	k := len(st.emitted)
	rest := ""
	if len(sentences) >= k && equalStrings(sentences[:k], st.emitted) {
		rest = strings.Join(sentences[k:], " ")
	} else {
		// The full reply validated differently from its streamed start: say the validated text
		// after what was already said rather than silently dropping the correction.
		rest = text
	}
	if rest != "" {
		// The length limit holds in streaming as in batch: within what is left of maxChars when
		// summarizing (keeping the closing question), and in parts of at most maxChars.
		nf := c.filtersFor(c.node.NodeID)
		if nf.enabled[spec.FilterLength] && nf.lengthAction() == "summarize" {
			budget := max(nf.maxChars-st.chars, utf8.RuneCountInString(lastQuestionIn(rest)))
			if utf8.RuneCountInString(rest) > budget {
				rest = summarizeKeepingQuestion(rest, budget)
			}
		}
		for i, part := range nf.fitParts(rest) {
			c.speakPart(part, SpokenExaminer, intercepted, k+i, false)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func filterNames(hits []filterHit) string {
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name.String()
	}
	return strings.Join(names, ",")
}

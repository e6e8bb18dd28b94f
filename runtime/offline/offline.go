// Package offline is the deterministic, rule-based examiner: it produces report_observation
// arguments from the candidate's words and the exam spec, with no network. It is the default
// examiner when no LLM endpoint is configured, and what tests and candidate scripts use.
package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Name is the examiner's name in events.
const Name = "offline"

// Examiner is the offline examiner. It is stateless between calls: everything it needs (the
// node, the covered targets, the probes already asked) comes with the request.
type Examiner struct {
	chunk int // stream the arguments in chunks of this many bytes through OnArguments (0: no streaming)
}

// Option configures the offline examiner.
type Option func(*Examiner) error

// WithStreaming makes Observe deliver its arguments through ExaminerRequest.OnArguments in
// chunks of n bytes before returning, like a streaming LLM, so the controller's streaming
// path can be exercised without a network.
func WithStreaming(n int) Option {
	return func(e *Examiner) error {
		if n <= 0 {
			return fmt.Errorf("offline: streaming chunk %d must be positive", n)
		}
		e.chunk = n
		return nil
	}
}

// New returns an offline examiner.
func New(opts ...Option) (*Examiner, error) {
	e := &Examiner{}
	for _, o := range opts {
		if err := o(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Name returns "offline".
func (e *Examiner) Name() string { return Name }

// report is report_observation's arguments in schema order: the decision fields precede
// spokenText, as the controller's streaming path expects.
type report struct {
	Signals            []runtime.Signal `json:"signals"`
	CommandDetected    string           `json:"commandDetected,omitempty"`
	AnswerQuality      string           `json:"answerQuality"`
	NeedsFollowUp      bool             `json:"needsFollowUp"`
	FollowUpType       string           `json:"followUpType,omitempty"`
	EvidenceSufficient bool             `json:"evidenceSufficient"`
	AnxietyDetected    bool             `json:"anxietyDetected"`
	DistressDetected   bool             `json:"distressDetected"`
	RapportMove        string           `json:"rapportMove"`
	DialogueMove       string           `json:"dialogueMove"`
	SpokenText         string           `json:"spokenText"`
}

// Observe returns the observation of one turn.
func (e *Examiner) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req == nil || req.Exam == nil || req.Node == nil {
		return nil, fmt.Errorf("offline: request without exam or node")
	}
	start := time.Now()
	r, results := e.observe(req)
	args, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("offline: encode observation: %w", err)
	}
	var first time.Duration
	if e.chunk > 0 && req.OnArguments != nil {
		for n := e.chunk; ; n += e.chunk {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if first == 0 {
				first = time.Since(start)
			}
			req.OnArguments(args[:min(n, len(args))])
			if n >= len(args) {
				break
			}
		}
	}
	return &runtime.ExaminerReply{Arguments: args, FirstToken: first, Complete: time.Since(start), Attempts: 1, AdminResults: results}, nil
}

// observe is the turn's observation and what it did with each admin instruction. The offline
// examiner acts only on instructions addressed to the candidate (runtime.CandidateLine): it
// says their lines, at once in an admin run, else ahead of its reply to a turn that stays in
// the node (a command's answer, or a reply that moves on, is not said or not followed, so they
// stay queued). Any other instruction is guidance it cannot follow: it says nothing for it and
// reports it not actionable, never reading it out.
func (e *Examiner) observe(req *runtime.ExaminerRequest) (report, []runtime.AdminStatus) {
	p := packOf(req)
	r := e.observeTurn(req, p)
	results := make([]runtime.AdminStatus, len(req.AdminInstructions))
	var lines []string
	for i, in := range req.AdminInstructions {
		line, ok := runtime.CandidateLine(in)
		switch {
		case !ok:
			results[i] = runtime.AdminNotActionable
		case req.AdminOnly || r.CommandDetected == "" && !r.EvidenceSufficient:
			results[i] = runtime.AdminConsumed
			lines = append(lines, line)
		}
	}
	switch {
	case req.AdminOnly && len(req.AdminInstructions) == 0:
		r.SpokenText = p.Line(lang.LineContinue)
	case req.AdminOnly:
		r.SpokenText = strings.Join(lines, " ")
	case len(lines) > 0:
		r.SpokenText = strings.Join(append(lines, r.SpokenText), " ")
	}
	return r, results
}

func (e *Examiner) observeTurn(req *runtime.ExaminerRequest, p *lang.Pack) report {
	node := req.Node
	question := lastQuestion(req)
	r := report{Signals: []runtime.Signal{}, RapportMove: "none", DialogueMove: "none"}
	if req.AdminOnly {
		r.AnswerQuality = runtime.QualityUnclear.String() // spokenText is observe's
		return r
	}
	text := strings.TrimSpace(req.Candidate.Text)
	if text == "" {
		r.AnswerQuality = runtime.QualitySilence.String()
		r.NeedsFollowUp, r.FollowUpType = true, "nudge"
		r.SpokenText = p.Then(lang.LineTakeYourTime, question)
		return r
	}
	// Distress outranks every command: "I can't cope, I want to stop" is distress, not finish.
	r.DistressDetected = matchAny(text, p.Offline.Distress) || matchAny(text, distressPhrases)
	if cmd, ok := runtime.ClassifyCommandIn(p, text); ok && !r.DistressDetected {
		r.CommandDetected = cmd.String()
		r.AnswerQuality = runtime.QualityPartial.String()
		r.SpokenText = commandLine(p, cmd, node, question)
		return r
	}
	r.AnxietyDetected = r.DistressDetected || matchAny(text, p.Offline.Anxiety) || matchAny(text, anxietyPhrases)
	r.Signals = detectSignals(p, req.Exam, node, text)

	covered := map[string]bool{}
	for _, s := range req.CoveredSignals {
		covered[s] = true
	}
	own := 0 // signals the node listens for: another node's signal answers another question
	for _, s := range r.Signals {
		if slices.Contains(node.Controller.EvidenceSignals, s.SignalType) {
			covered[s.SignalType] = true
		}
		if node.ListensFor(s.SignalType) {
			own++
		}
	}
	words := len(strings.Fields(text))
	switch {
	case node.Kind != spec.KindAssessment:
		if words >= 3 {
			r.AnswerQuality = runtime.QualitySubstantive.String()
		} else {
			r.AnswerQuality = runtime.QualityPartial.String()
		}
	case own > 0:
		r.AnswerQuality = runtime.QualitySubstantive.String()
	case words >= 3 && !onTopic(req.Exam, node, text):
		r.AnswerQuality = runtime.QualityOffTopic.String()
	default:
		r.AnswerQuality = runtime.QualityPartial.String()
	}
	prefix := ""
	if r.AnxietyDetected {
		prefix = p.Line(lang.LineTakeYourTime) + " "
	}
	if node.Kind != spec.KindAssessment {
		if r.AnswerQuality == runtime.QualitySubstantive.String() {
			r.EvidenceSufficient = true
			r.SpokenText = prefix + p.Line(lang.LineThankYou)
			return r
		}
		r.NeedsFollowUp, r.FollowUpType = true, "nudge"
		r.SpokenText = prefix + p.Line(lang.LineTellMeMore)
		return r
	}
	if len(covered) >= node.Controller.RequiredEvidenceCount && r.AnswerQuality != runtime.QualityOffTopic.String() {
		r.EvidenceSufficient = true
		r.SpokenText = prefix + p.Line(lang.LineThankYouClear)
		return r
	}
	r.NeedsFollowUp = true
	if r.AnswerQuality == runtime.QualityOffTopic.String() {
		r.FollowUpType = "redirect"
		r.SpokenText = prefix + p.Then(lang.LineComeBack, node.Controller.ConversationPrompt)
		return r
	}
	r.FollowUpType = "probe"
	if req.WrapUp {
		// The wrap-up beat directs the examiner to close: the follow-up is announced as the last.
		prefix += p.Line(lang.LineLastQuestion) + " "
	}
	r.SpokenText = prefix + nextProbe(p, req, covered)
	return r
}

// nextProbe picks the authored follow-up for the first target not yet covered, rotating
// through a target's probes by how often they were already asked.
func nextProbe(p *lang.Pack, req *runtime.ExaminerRequest, covered map[string]bool) string {
	nc := req.Node.Controller
	targets := nc.EvidenceSignals
	if t := directedTarget(req, covered); t != "" {
		// A pacing direction ("Ask about costs next.") decides which target comes first.
		targets = append([]string{t}, targets...)
	}
	for _, t := range targets {
		if covered[t] {
			continue
		}
		probes := nc.FollowUpProbes[t]
		if len(probes) == 0 {
			continue
		}
		asked := 0
		for _, p := range probes {
			asked += countAsked(req.Messages, p)
		}
		return probes[asked%len(probes)]
	}
	return p.Line(lang.LineApproachMore)
}

func countAsked(msgs []spec.Message, probe string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == "assistant" && strings.Contains(m.Content, probe) {
			n++
		}
	}
	return n
}

// lastQuestion is the question on the table as the controller says (a check-in's "Would you
// like me to repeat the question?" never is), else the last question the examiner asked in
// this context, or the node's prompt.
func lastQuestion(req *runtime.ExaminerRequest) string {
	if req.Question != "" {
		return req.Question
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "assistant" {
			continue
		}
		ss := runtime.SplitSentences(m.Content)
		for j := len(ss) - 1; j >= 0; j-- {
			if strings.HasSuffix(ss[j], "?") || strings.HasSuffix(ss[j], "؟") {
				return ss[j]
			}
		}
	}
	return req.Node.Controller.ConversationPrompt
}

func commandLine(p *lang.Pack, cmd runtime.Command, node *spec.CompiledNode, question string) string {
	switch cmd {
	case runtime.CmdClarification:
		return runtime.ClarifyLine(p, node, question)
	case runtime.CmdRequestRephrase:
		return p.Then(lang.LineRephrase, question)
	case runtime.CmdThinkingAloud:
		return p.Line(lang.LineTakeYourTime)
	}
	return question
}

// packOf is the request's language pack: the controller's, else the shipped pack of the
// exam's language, else English.
func packOf(req *runtime.ExaminerRequest) *lang.Pack {
	if req.Language != nil {
		return req.Language
	}
	if p, err := lang.Lookup(req.Exam.Language); err == nil {
		return p
	}
	return lang.English()
}

package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/spec/lang"
)

// Compile loads, validates and compiles a spec. name is the file name used in diagnostics.
// The diagnostics (errors and warnings, sorted by position) are always returned; when any is an
// error the exam is nil and the error wraps ErrInvalid. Compile is pure and deterministic.
func Compile(name string, src []byte) (*Exam, Diagnostics, error) {
	s, diags := load(name, src)
	if s == nil {
		diags.Sort()
		return nil, diags, invalid(diags)
	}
	if diags.HasErrors() {
		// Still validate, so every problem is reported in one run, but never compile a spec
		// whose values did not all load: validation skips what failed to decode.
		if s.src == nil || !s.src.truncated {
			diags = append(diags, Validate(s)...)
		}
		diags.Sort()
		return nil, diags, invalid(diags)
	}
	exam, vdiags, err := CompileSpec(s)
	diags = append(diags, vdiags...)
	diags.Sort()
	if diags.HasErrors() {
		return nil, diags, invalid(diags)
	}
	return exam, diags, err
}

// CompileFile reads and compiles the spec at path.
func CompileFile(path string) (*Exam, Diagnostics, error) {
	src, err := ReadSourceFile(path)
	if err != nil {
		return nil, nil, err
	}
	return Compile(path, src)
}

// CompileSpec validates and compiles a spec that was loaded or built in code. For a spec built
// in code, SourceSHA256 is the hash of its JSON encoding and diagnostics carry no positions.
func CompileSpec(s *Spec) (*Exam, Diagnostics, error) {
	if s == nil {
		return nil, nil, ErrNilSpec
	}
	diags := Validate(s)
	if diags.HasErrors() {
		return nil, diags, invalid(diags)
	}
	return compile(s), diags, nil
}

func invalid(diags Diagnostics) error {
	errs := diags.Errors()
	switch len(errs) {
	case 0:
		return fmt.Errorf("%w", ErrInvalid)
	case 1:
		return fmt.Errorf("%w: %s", ErrInvalid, errs[0])
	}
	return fmt.Errorf("%w: %d errors, first: %s", ErrInvalid, len(errs), errs[0])
}

// compile turns a valid spec into an Exam. It must only be called after Validate found no errors.
func compile(s *Spec) *Exam {
	e := &Exam{
		IRVersion:          IRVersion,
		AdapterVersion:     AdapterVersion,
		SpecVersion:        s.SpecVersion,
		ID:                 s.ID,
		Title:              s.Title,
		Language:           s.Language,
		SourceSHA256:       sourceHash(s),
		TotalTimeBudgetSec: s.TotalTimeBudgetSec,
		Policies:           resolvePolicies(s.Policies, s.Language),
		Filters:            resolveFilters(s.OutputValidation),
		Beats:              append([]Beat(nil), s.Beats...),
		Context:            ResolvedContext{SummaryTokens: DefaultSummaryTokens},
		EntryNode:          s.Nodes[0].NodeID,
		Marking:            compileMarking(s.Marking),
	}
	if e.Language == "" {
		e.Language = DefaultLanguage
	}
	if s.Context != nil && s.Context.SummaryTokens != nil {
		e.Context.SummaryTokens = *s.Context.SummaryTokens
	}
	e.Personas = append([]Persona{s.Persona}, s.Personas...)
	vocab := map[string]*EvidenceDef{}
	for _, ev := range s.Evidence {
		ev.Levels = append([]string(nil), ev.Levels...)
		ev.Cues = append([]string(nil), ev.Cues...)
		if len(ev.Cues) == 0 {
			ev.Cues = nil
		}
		ev.LevelCues = cloneLists(ev.LevelCues)
		e.Evidence = append(e.Evidence, ev)
	}
	for i := range e.Evidence {
		vocab[e.Evidence[i].SignalType] = &e.Evidence[i]
	}
	personas := map[string]Persona{}
	for _, p := range e.Personas {
		personas[p.ID] = p
	}
	tool := ReportObservationTool()
	heard := listenedFor(s.Nodes)
	for i := range s.Nodes {
		e.Nodes = append(e.Nodes, compileNode(i, &s.Nodes[i], s.Persona, personas, vocab, heard, tool))
	}
	return e
}

func sourceHash(s *Spec) string {
	if s.src != nil && s.src.sha256 != "" {
		return s.src.sha256
	}
	b, _ := json.Marshal(s) // a Spec holds only strings, numbers, bools, slices and maps
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func resolvePolicies(p *Policies, language string) ResolvedPolicies {
	r := ResolvedPolicies{
		MaxClarifications: DefaultMaxClarifications,
		STTMinConfidence:  DefaultSTTMinConfidence,
		TimeWarningSec:    DefaultTimeWarningSec,
		ConfirmFinish:     true,
		Gates: ResolvedGates{
			FirstSpeak: DefaultFirstSpeak, BeatHold: DefaultBeatHold, PostSpeakBuffer: DefaultPostSpeakBuffer,
			UserIdle: DefaultUserIdle, UserIdleTimeout: DefaultUserIdleTimeout,
		},
		Silence: ResolvedSilence{Enabled: true, CheckInSec: DefaultSilenceCheckInSec, RepeatSec: DefaultSilenceRepeatSec,
			Prompt: silencePrompt(language)},
	}
	if p == nil {
		return r
	}
	setB := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setI := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	setB(&r.SkipAllowed, p.SkipAllowed)
	setI(&r.MaxClarifications, p.MaxClarifications)
	setF(&r.STTMinConfidence, p.STTMinConfidence)
	setI(&r.TimeWarningSec, p.TimeWarningSec)
	setB(&r.ConfirmFinish, p.ConfirmFinish)
	if p.OnExaminerFailure != nil {
		r.ExaminerFailure = ExaminerFailure(*p.OnExaminerFailure)
	}
	r.TurnTaking = resolveTurnTaking(p.TurnTaking)
	if g := p.Gates; g != nil {
		setF(&r.Gates.FirstSpeak, g.FirstSpeak)
		// A spec written before beatHold existed held beats with firstSpeak: it still does.
		setF(&r.Gates.BeatHold, g.FirstSpeak)
		setF(&r.Gates.BeatHold, g.BeatHold)
		setF(&r.Gates.PostSpeakBuffer, g.PostSpeakBuffer)
		setF(&r.Gates.UserIdle, g.UserIdle)
		setF(&r.Gates.UserIdleTimeout, g.UserIdleTimeout)
		setF(&r.Gates.SpeakGate, g.SpeakGate)
	}
	if sl := p.Silence; sl != nil {
		setB(&r.Silence.Enabled, sl.Enabled)
		setF(&r.Silence.CheckInSec, sl.CheckInSec)
		setF(&r.Silence.RepeatSec, sl.RepeatSec)
		setF(&r.Silence.TimeoutSec, sl.TimeoutSec)
		if sl.Prompt != "" {
			r.Silence.Prompt = sl.Prompt
		}
	}
	return r
}

// listenedFor is every signal some node listens for (evidence signals and transversal
// skills), each once, in node order: the vocabulary a report may use in any node.
func listenedFor(nodes []Node) []string {
	var out []string
	for _, n := range nodes {
		for _, s := range append(slices.Clone(n.EvidenceSignals), n.TransversalSkills...) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func compileNode(i int, n *Node, def Persona, personas map[string]Persona, vocab map[string]*EvidenceDef, heard []string, tool FunctionDef) CompiledNode {
	persona := def
	if n.Persona != "" {
		persona = personas[n.Persona]
	}
	maxFU := DefaultMaxFollowUps
	if n.MaxFollowUps != nil {
		maxFU = *n.MaxFollowUps
	}
	maxOT := DefaultMaxOffTopicRedirects
	if n.MaxOffTopicRedirects != nil {
		maxOT = *n.MaxOffTopicRedirects
	}
	req := DefaultRequiredEvidenceCount
	if n.CompletionPolicy != nil && n.CompletionPolicy.RequiredEvidenceCount != nil {
		req = *n.CompletionPolicy.RequiredEvidenceCount
	}
	strategy := n.ContextStrategy
	if strategy == "" {
		strategy = ContextReset
	}
	role := strings.TrimSpace(persona.RoleMessage)
	if role == "" {
		role = defaultRoleMessage
	}
	ctl := NodeController{
		Persona:               persona.ID,
		Voice:                 persona.Voice,
		TTSSpeed:              persona.TTSSpeed,
		Scenario:              n.Scenario,
		ScenarioDomain:        cloneStrings(n.ScenarioDomain),
		ScenarioIntro:         n.ScenarioIntro,
		ConversationPrompt:    n.ConversationPrompt,
		EvidenceSignals:       cloneStrings(n.EvidenceSignals),
		TransversalSkills:     cloneStrings(n.TransversalSkills),
		MaxFollowUps:          maxFU,
		MaxOffTopicRedirects:  maxOT,
		TimeBudgetSec:         n.TimeBudgetSec,
		RequiredEvidenceCount: req,
		AllowedActions:        cloneStrings(n.AllowedActions),
		ForbiddenActions:      cloneStrings(n.ForbiddenActions),
		CarrySummary:          n.CarrySummary,
		Next:                  n.Next,
	}
	if len(n.FollowUpProbes) > 0 {
		ctl.FollowUpProbes = make(map[string][]string, len(n.FollowUpProbes))
		for k, v := range n.FollowUpProbes {
			ctl.FollowUpProbes[k] = cloneStrings(v)
		}
	}
	if len(n.Variants) > 0 {
		ctl.Draw, ctl.FixedVariant = n.Draw, n.FixedVariant
		if ctl.Draw == "" {
			ctl.Draw = DrawRandom
		}
	}
	if len(n.Transitions) > 0 {
		ctl.Transitions = make(map[Reason]string, len(n.Transitions))
		for _, t := range n.Transitions {
			ctl.Transitions[t.On] = t.To
		}
	}
	return CompiledNode{
		NodeID: n.NodeID,
		Index:  i,
		Kind:   n.Kind,
		LLM: NodeLLM{
			RoleMessage:     role,
			TaskMessages:    []Message{{Role: "developer", Content: buildTaskMessage(n, vocab, heard, maxFU)}},
			Functions:       []FunctionDef{tool},
			ContextStrategy: strategy,
		},
		Controller: ctl,
		Variants:   compileVariants(n, vocab, heard, maxFU),
	}
}

func cloneStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}

// silencePrompt is the default silence check-in in the exam's language: its shipped pack's
// line, else the English default (a pack from the config file is applied by the runtime).
func silencePrompt(language string) string {
	if language == "" {
		return DefaultSilencePrompt
	}
	if p, err := lang.Lookup(language); err == nil {
		return p.Line(lang.LineSilencePrompt)
	}
	return DefaultSilencePrompt
}

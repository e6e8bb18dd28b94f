package spec

import "slices"

// IRVersion identifies the compiled exam format. It changes whenever Exam's JSON shape changes.
const IRVersion = "examtui-ir/1"

// AdapterVersion identifies the report_observation schema, the task message template and the
// node compilation rules (docs/outputs.md).
const AdapterVersion = "examtui-pipecat-adapter/0.5"

// Exam is a compiled exam: everything the runtime executes, with every default resolved.
// Compile is deterministic, so the JSON encoding of an Exam is byte-identical for the same input.
type Exam struct {
	IRVersion          string           `json:"irVersion"`
	AdapterVersion     string           `json:"adapterVersion"`
	SpecVersion        string           `json:"specVersion"`
	ID                 string           `json:"id"`
	Title              string           `json:"title"`
	Language           string           `json:"language"`
	SourceSHA256       string           `json:"sourceSha256"`
	TotalTimeBudgetSec int              `json:"totalTimeBudgetSec,omitempty"`
	Policies           ResolvedPolicies `json:"policies"`
	Personas           []Persona        `json:"personas"` // the default persona first, then the rest in file order
	Evidence           []EvidenceDef    `json:"evidence"`
	Filters            []ResolvedFilter `json:"outputValidationFilters"` // all five, pipeline order
	Beats              []Beat           `json:"beats,omitempty"`
	Context            ResolvedContext  `json:"context"`
	EntryNode          string           `json:"entryNode"`
	Nodes              []CompiledNode   `json:"nodes"`
	// Marking is set only when the spec has a marking scheme, so exams without one compile
	// as before.
	Marking *CompiledMarking `json:"marking,omitempty"`
}

// ResolvedContext is the examiner's context settings with defaults applied.
type ResolvedContext struct {
	// SummaryTokens bounds the model's summary of older turns in a node (the summary call's
	// max_tokens and the text kept). An exam compiled before it existed reads 0: use
	// SummaryTokensOrDefault.
	SummaryTokens int `json:"summaryTokens"`
}

// SummaryTokensOrDefault is SummaryTokens, or the default for an exam compiled without it.
func (c ResolvedContext) SummaryTokensOrDefault() int {
	if c.SummaryTokens <= 0 {
		return DefaultSummaryTokens
	}
	return c.SummaryTokens
}

// Limits of context.summaryTokens.
const (
	DefaultSummaryTokens = 2000
	MinSummaryTokens     = 100
	MaxSummaryTokens     = 16000
)

// ResolvedPolicies are the exam policies with defaults applied.
type ResolvedPolicies struct {
	SkipAllowed       bool            `json:"skipAllowed"`
	MaxClarifications int             `json:"maxClarifications"`
	STTMinConfidence  float64         `json:"sttMinConfidence"`
	TimeWarningSec    int             `json:"timeWarningSec"`
	ConfirmFinish     bool            `json:"confirmFinish"`
	Gates             ResolvedGates   `json:"gates"`
	Silence           ResolvedSilence `json:"silence"`
	// TurnTaking is set only when the spec tunes it (policies.turnTaking).
	TurnTaking *ResolvedTurnTaking `json:"turnTaking,omitempty"`
	// ExaminerFailure is set only when the spec names a policy, so that exams without one
	// compile as before; read it through OnExaminerFailure.
	ExaminerFailure ExaminerFailure `json:"onExaminerFailure,omitempty"`
}

// ResolvedSilence is the silence check-in policy with defaults applied. TimeoutSec 0 leaves
// the end of a silence to the node's time budget.
type ResolvedSilence struct {
	Enabled    bool    `json:"enabled"`
	CheckInSec float64 `json:"checkInSec"`
	RepeatSec  float64 `json:"repeatSec"`
	TimeoutSec float64 `json:"timeoutSec,omitempty"`
	Prompt     string  `json:"prompt"`
}

// ResolvedGates are the pacing gates in seconds with defaults applied.
type ResolvedGates struct {
	// FirstSpeak is the delay before the very first examiner call after the greeting
	// (BOT_FIRST_SPEAK_GATE_SECS); later calls wait SpeakGate.
	FirstSpeak float64 `json:"firstSpeak"`
	// BeatHold keeps every beat back for this long from the exam's start (BOT_BEAT_HOLD_SECS).
	// Before it had its own name firstSpeak did this, so a spec without beatHold keeps its
	// firstSpeak as the hold.
	BeatHold        float64 `json:"beatHold"`
	PostSpeakBuffer float64 `json:"postSpeakBuffer"`
	UserIdle        float64 `json:"userIdle"`
	UserIdleTimeout float64 `json:"userIdleTimeout"`
	// SpeakGate is a small delay before each examiner call (BOT_SPEAK_GATE_DELAY_SECS).
	SpeakGate float64 `json:"speakGate,omitempty"`
}

// Defaults from docs/exam-format.md.
const (
	DefaultLanguage              = "en"
	DefaultMaxClarifications     = 2
	DefaultSTTMinConfidence      = 0.5
	DefaultTimeWarningSec        = 60
	DefaultMaxFollowUps          = 3
	DefaultMaxOffTopicRedirects  = 2
	DefaultRequiredEvidenceCount = 1
	DefaultMaxChars              = 500
	DefaultFirstSpeak            = 0.0
	DefaultBeatHold              = 0.2
	DefaultPostSpeakBuffer       = 1.0
	DefaultUserIdle              = 1.5
	DefaultUserIdleTimeout       = 8.0
	DefaultSilenceCheckInSec     = 20.0
	DefaultSilenceRepeatSec      = 20.0
	DefaultSilencePrompt         = "Take your time. Would you like me to repeat the question?"
)

// ResolvedFilter is one output filter with defaults applied. For rubric_leak the check data
// (signal ids, level names, descriptions) comes from each node's controller part; for
// topic_containment from the node's scenarioDomain.
type ResolvedFilter struct {
	Name     FilterName `json:"name"`
	Enabled  bool       `json:"enabled"`
	Action   string     `json:"action"`
	Patterns []string   `json:"patterns,omitempty"`
	MaxChars int        `json:"maxChars,omitempty"`
	// CheckAgainst documents where a filter's data comes from ("node.evidenceSignalDescriptions",
	// "node.scenarioDomain"), as in the adapter's outputValidationFilters block.
	CheckAgainst string `json:"checkAgainst,omitempty"`
}

// CompiledNode is one node split into what the LLM sees and what only the controller knows.
type CompiledNode struct {
	NodeID     string         `json:"nodeId"`
	Index      int            `json:"index"` // position in the spec, 0-based
	Kind       NodeKind       `json:"kind"`
	LLM        NodeLLM        `json:"llm"`
	Controller NodeController `json:"controller"`
	// Variants are the node's versions of its question (variant.go); Variant is set only on
	// the copy WithVariant returns, naming the one drawn.
	Variants []CompiledVariant `json:"variants,omitempty"`
	Variant  string            `json:"variant,omitempty"`
}

// NodeLLM is everything the examiner LLM is given for a node. Transition conditions never
// appear here.
type NodeLLM struct {
	RoleMessage     string          `json:"roleMessage"`
	TaskMessages    []Message       `json:"taskMessages"`
	Functions       []FunctionDef   `json:"functions"` // exactly one: report_observation
	ContextStrategy ContextStrategy `json:"contextStrategy"`
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system | developer | user | assistant
	Content string `json:"content"`
}

// FunctionDef is a tool the LLM may call, with its JSON Schema parameters.
type FunctionDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// NodeController is the controller-only part of a node, with every default resolved. Critical
// fields (node id, question text, evidence targets, budgets, actions, transitions) are verbatim.
type NodeController struct {
	Persona               string              `json:"persona"`
	Voice                 string              `json:"voice,omitempty"`
	TTSSpeed              float64             `json:"ttsSpeed,omitempty"`
	Scenario              string              `json:"scenario,omitempty"`
	ScenarioDomain        []string            `json:"scenarioDomain,omitempty"`
	ScenarioIntro         string              `json:"scenarioIntro,omitempty"`
	ConversationPrompt    string              `json:"conversationPrompt,omitempty"`
	EvidenceSignals       []string            `json:"evidenceSignals,omitempty"`
	TransversalSkills     []string            `json:"transversalSkills,omitempty"`
	MaxFollowUps          int                 `json:"maxFollowUps"`
	MaxOffTopicRedirects  int                 `json:"maxOffTopicRedirects"`
	TimeBudgetSec         int                 `json:"timeBudgetSec,omitempty"`
	RequiredEvidenceCount int                 `json:"requiredEvidenceCount"`
	AllowedActions        []string            `json:"allowedActions,omitempty"`
	ForbiddenActions      []string            `json:"forbiddenActions,omitempty"`
	FollowUpProbes        map[string][]string `json:"followUpProbes,omitempty"`
	CarrySummary          bool                `json:"carrySummary,omitempty"`
	// Draw is how a node with variants picks one (random when the spec names none);
	// FixedVariant is the variant draw fixed names. Cues are the drawn variant's extra cues.
	Draw         DrawKind            `json:"draw,omitempty"`
	FixedVariant string              `json:"fixedVariant,omitempty"`
	Cues         map[string][]string `json:"cues,omitempty"`
	Next         string              `json:"next,omitempty"`
	// Transitions maps every reason the author named to its successor; a reason not listed
	// uses Next. encoding/json sorts map keys, which keeps output deterministic.
	Transitions map[Reason]string `json:"transitions,omitempty"`
}

// Node returns the compiled node with the given id, or nil.
func (e *Exam) Node(id string) *CompiledNode {
	for i := range e.Nodes {
		if e.Nodes[i].NodeID == id {
			return &e.Nodes[i]
		}
	}
	return nil
}

// Signal returns the evidence definition for a signal type, or nil.
func (e *Exam) Signal(signalType string) *EvidenceDef {
	for i := range e.Evidence {
		if e.Evidence[i].SignalType == signalType {
			return &e.Evidence[i]
		}
	}
	return nil
}

// ListensFor reports whether the node listens for signalType: one of its evidence signals or
// transversal skills.
func (n *CompiledNode) ListensFor(signalType string) bool {
	return n != nil && (slices.Contains(n.Controller.EvidenceSignals, signalType) ||
		slices.Contains(n.Controller.TransversalSkills, signalType))
}

// ListenedFor reports whether some node of the exam listens for signalType: the vocabulary a
// report may use in any node, since evidence counts whichever node it is heard in.
func (e *Exam) ListenedFor(signalType string) bool {
	for i := range e.Nodes {
		if e.Nodes[i].ListensFor(signalType) {
			return true
		}
	}
	return false
}

// SignalsListenedFor is every signal some node listens for, each once, in node order.
func (e *Exam) SignalsListenedFor() []string {
	var out []string
	for i := range e.Nodes {
		nc := &e.Nodes[i].Controller
		for _, s := range append(slices.Clone(nc.EvidenceSignals), nc.TransversalSkills...) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Persona returns the persona with the given id, or nil.
func (e *Exam) Persona(id string) *Persona {
	for i := range e.Personas {
		if e.Personas[i].ID == id {
			return &e.Personas[i]
		}
	}
	return nil
}

// Successor returns the node that follows n for the given reason, and whether there is one.
func (n *CompiledNode) Successor(r Reason) (string, bool) {
	if to, ok := n.Controller.Transitions[r]; ok {
		return to, true
	}
	return n.Controller.Next, n.Controller.Next != ""
}

// Filter returns the resolved filter with the given name, or nil.
func (e *Exam) Filter(name FilterName) *ResolvedFilter {
	for i := range e.Filters {
		if e.Filters[i].Name == name {
			return &e.Filters[i]
		}
	}
	return nil
}

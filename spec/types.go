// Package spec loads, validates and compiles exam specifications (docs/exam-format.md, format v1).
//
// The source model in this file mirrors the YAML/JSON format field for field; the compiled
// form the runtime executes is in compiled.go.
package spec

// Spec is an exam specification as written by an author.
type Spec struct {
	SpecVersion        string            `json:"specVersion" yaml:"specVersion"`
	ID                 string            `json:"id" yaml:"id"`
	Title              string            `json:"title" yaml:"title"`
	Language           string            `json:"language,omitempty" yaml:"language,omitempty"`
	Persona            Persona           `json:"persona" yaml:"persona"`
	Personas           []Persona         `json:"personas,omitempty" yaml:"personas,omitempty"`
	TotalTimeBudgetSec int               `json:"totalTimeBudgetSec,omitempty" yaml:"totalTimeBudgetSec,omitempty"`
	Policies           *Policies         `json:"policies,omitempty" yaml:"policies,omitempty"`
	Evidence           []EvidenceDef     `json:"evidence" yaml:"evidence"`
	OutputValidation   *OutputValidation `json:"outputValidation,omitempty" yaml:"outputValidation,omitempty"`
	Nodes              []Node            `json:"nodes" yaml:"nodes"`
	Beats              []Beat            `json:"beats,omitempty" yaml:"beats,omitempty"`
	Context            *Context          `json:"context,omitempty" yaml:"context,omitempty"`
	// Marking is the marking scheme (spec/marking.go, docs/marking.md); absent: not markable.
	Marking *Marking `json:"marking,omitempty" yaml:"marking,omitempty"`

	// src is where each value came from; nil for a spec built in code.
	src *source
}

// Context tunes the examiner's context (docs/exam-format.md, "Context strategies").
type Context struct {
	// SummaryTokens is the budget of a model-written summary of older turns in a node.
	SummaryTokens *int `json:"summaryTokens,omitempty" yaml:"summaryTokens,omitempty"`
}

// Persona is a voice the examiner speaks with.
type Persona struct {
	ID          string  `json:"id" yaml:"id"`
	RoleMessage string  `json:"roleMessage" yaml:"roleMessage"`
	Voice       string  `json:"voice,omitempty" yaml:"voice,omitempty"`
	TTSSpeed    float64 `json:"ttsSpeed,omitempty" yaml:"ttsSpeed,omitempty"`
}

// Policies are exam-wide rules. Pointer fields distinguish "absent" from a zero value so that
// defaults apply only to what the author left out.
type Policies struct {
	SkipAllowed       *bool    `json:"skipAllowed,omitempty" yaml:"skipAllowed,omitempty"`
	MaxClarifications *int     `json:"maxClarifications,omitempty" yaml:"maxClarifications,omitempty"`
	STTMinConfidence  *float64 `json:"sttMinConfidence,omitempty" yaml:"sttMinConfidence,omitempty"`
	TimeWarningSec    *int     `json:"timeWarningSec,omitempty" yaml:"timeWarningSec,omitempty"`
	ConfirmFinish     *bool    `json:"confirmFinish,omitempty" yaml:"confirmFinish,omitempty"`
	Gates             *Gates   `json:"gates,omitempty" yaml:"gates,omitempty"`
	// OnExaminerFailure: "offline" (default) or "interrupt" (failure_policy.go).
	OnExaminerFailure *string  `json:"onExaminerFailure,omitempty" yaml:"onExaminerFailure,omitempty"`
	Silence           *Silence `json:"silence,omitempty" yaml:"silence,omitempty"`
	// TurnTaking tunes when a spoken turn ends (seconds of silence); absent: the defaults.
	TurnTaking *TurnTaking `json:"turnTaking,omitempty" yaml:"turnTaking,omitempty"`
}

// TurnTaking is the adaptive end of a spoken turn, in seconds of silence after the last speech:
// SureDelay when the words read as a finished answer of a few words on no filler, CompleteDelay
// when they read as a finished answer, MinDelay ordinarily, MaxDelay while they trail ("um",
// "and", "because"). A candidate's own pauses can lengthen the first two, never the others.
type TurnTaking struct {
	SureDelay     *float64 `json:"sureDelay,omitempty" yaml:"sureDelay,omitempty"`
	CompleteDelay *float64 `json:"completeDelay,omitempty" yaml:"completeDelay,omitempty"`
	MinDelay      *float64 `json:"minDelay,omitempty" yaml:"minDelay,omitempty"`
	MaxDelay      *float64 `json:"maxDelay,omitempty" yaml:"maxDelay,omitempty"`
}

// Silence configures the check-ins a silent candidate hears: a neutral prompt
// after checkInSec of silence, the question repeated after a further repeatSec, then the
// node's timeout path (its time budget, or timeoutSec more of silence when set).
type Silence struct {
	Enabled    *bool    `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	CheckInSec *float64 `json:"checkInSec,omitempty" yaml:"checkInSec,omitempty"`
	RepeatSec  *float64 `json:"repeatSec,omitempty" yaml:"repeatSec,omitempty"`
	TimeoutSec *float64 `json:"timeoutSec,omitempty" yaml:"timeoutSec,omitempty"`
	Prompt     string   `json:"prompt,omitempty" yaml:"prompt,omitempty"`
}

// Gates are pacing gates in seconds (docs/exam-format.md, "Gates").
type Gates struct {
	FirstSpeak      *float64 `json:"firstSpeak,omitempty" yaml:"firstSpeak,omitempty"`
	BeatHold        *float64 `json:"beatHold,omitempty" yaml:"beatHold,omitempty"`
	PostSpeakBuffer *float64 `json:"postSpeakBuffer,omitempty" yaml:"postSpeakBuffer,omitempty"`
	UserIdle        *float64 `json:"userIdle,omitempty" yaml:"userIdle,omitempty"`
	UserIdleTimeout *float64 `json:"userIdleTimeout,omitempty" yaml:"userIdleTimeout,omitempty"`
	SpeakGate       *float64 `json:"speakGate,omitempty" yaml:"speakGate,omitempty"`
}

// EvidenceDef is one entry of the evidence vocabulary.
type EvidenceDef struct {
	SignalType  string   `json:"signalType" yaml:"signalType"`
	Description string   `json:"description" yaml:"description"`
	Levels      []string `json:"levels" yaml:"levels"`
	Cues        []string `json:"cues,omitempty" yaml:"cues,omitempty"`
	// LevelCues are phrases, per level name, that show the signal at that level: the offline
	// examiner reports the highest level whose cues the answer holds (the first level when
	// none). Like Cues, they never reach the model.
	LevelCues map[string][]string `json:"levelCues,omitempty" yaml:"levelCues,omitempty"`
}

// Node is one node of the exam graph.
type Node struct {
	NodeID               string              `json:"nodeId" yaml:"nodeId"`
	Kind                 NodeKind            `json:"kind" yaml:"kind"`
	Persona              string              `json:"persona,omitempty" yaml:"persona,omitempty"`
	Scenario             string              `json:"scenario,omitempty" yaml:"scenario,omitempty"`
	ScenarioDomain       []string            `json:"scenarioDomain,omitempty" yaml:"scenarioDomain,omitempty"`
	ScenarioIntro        string              `json:"scenarioIntro,omitempty" yaml:"scenarioIntro,omitempty"`
	ConversationPrompt   string              `json:"conversationPrompt,omitempty" yaml:"conversationPrompt,omitempty"`
	EvidenceSignals      []string            `json:"evidenceSignals,omitempty" yaml:"evidenceSignals,omitempty"`
	TransversalSkills    []string            `json:"transversalSkills,omitempty" yaml:"transversalSkills,omitempty"`
	MaxFollowUps         *int                `json:"maxFollowUps,omitempty" yaml:"maxFollowUps,omitempty"`
	MaxOffTopicRedirects *int                `json:"maxOffTopicRedirects,omitempty" yaml:"maxOffTopicRedirects,omitempty"`
	TimeBudgetSec        int                 `json:"timeBudgetSec,omitempty" yaml:"timeBudgetSec,omitempty"`
	CompletionPolicy     *CompletionPolicy   `json:"completionPolicy,omitempty" yaml:"completionPolicy,omitempty"`
	AllowedActions       []string            `json:"allowedActions,omitempty" yaml:"allowedActions,omitempty"`
	ForbiddenActions     []string            `json:"forbiddenActions,omitempty" yaml:"forbiddenActions,omitempty"`
	FollowUpProbes       map[string][]string `json:"followUpProbes,omitempty" yaml:"followUpProbes,omitempty"`
	ContextStrategy      ContextStrategy     `json:"contextStrategy,omitempty" yaml:"contextStrategy,omitempty"`
	CarrySummary         bool                `json:"carrySummary,omitempty" yaml:"carrySummary,omitempty"`
	Next                 string              `json:"next,omitempty" yaml:"next,omitempty"`
	Transitions          []Transition        `json:"transitions,omitempty" yaml:"transitions,omitempty"`
	// Variants are versions of the node's question the runtime draws from (variant.go).
	Variants     []Variant `json:"variants,omitempty" yaml:"variants,omitempty"`
	Draw         DrawKind  `json:"draw,omitempty" yaml:"draw,omitempty"`
	FixedVariant string    `json:"fixedVariant,omitempty" yaml:"fixedVariant,omitempty"`
}

// CompletionPolicy says when a node has gathered enough evidence.
type CompletionPolicy struct {
	RequiredEvidenceCount *int `json:"requiredEvidenceCount,omitempty" yaml:"requiredEvidenceCount,omitempty"`
}

// Transition maps a transition reason to a successor node.
type Transition struct {
	On Reason `json:"on" yaml:"on"`
	To string `json:"to" yaml:"to"`
}

// Beat is a timed pacing prompt.
type Beat struct {
	AtSec   int    `json:"atSec" yaml:"atSec"`
	Message string `json:"message" yaml:"message"`
	Scope   string `json:"scope" yaml:"scope"`
	Wrapup  bool   `json:"wrapup,omitempty" yaml:"wrapup,omitempty"`
	// Summary compresses the examiner's context into a summary when the beat fires
	// (reset_with_summary at a beat boundary, docs/exam-format.md).
	Summary bool `json:"summary,omitempty" yaml:"summary,omitempty"`
}

// OutputValidation overrides the default output filters.
type OutputValidation struct {
	Filters []FilterConfig `json:"filters,omitempty" yaml:"filters,omitempty"`
}

// FilterConfig overrides one output filter. Only the fields meaningful to the named filter may
// be set (patterns for persona_break and leading_question, maxChars for length).
type FilterConfig struct {
	Name     FilterName `json:"name" yaml:"name"`
	Enabled  *bool      `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	Action   string     `json:"action,omitempty" yaml:"action,omitempty"`
	Patterns []string   `json:"patterns,omitempty" yaml:"patterns,omitempty"`
	MaxChars int        `json:"maxChars,omitempty" yaml:"maxChars,omitempty"`
}

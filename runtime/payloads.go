package runtime

import "encoding/json"

// ExamStatePayload reports a change of exam state.
type ExamStatePayload struct {
	State    ExamState `json:"state"`
	Previous ExamState `json:"previous,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	// Nodes lists the exam's node ids in spec order, so the console can show the whole plan
	// before the nodes are visited. Set at least on the first exam_state of a session.
	Nodes []string `json:"nodes,omitempty"`
	// TotalTimeBudgetSec is the whole-exam budget; zero means none.
	TotalTimeBudgetSec int `json:"totalTimeBudgetSec,omitempty"`
	// DeadlineAt (the current node's) and ExamDeadlineAt (RFC 3339) restate the running
	// deadlines when the exam (re)enters in_progress, e.g. after a pause moved them. Empty when
	// there is none or while paused.
	DeadlineAt     string `json:"deadlineAt,omitempty"`
	ExamDeadlineAt string `json:"examDeadlineAt,omitempty"`
	// By says who paused or resumed the exam (payloads_presence.go); nil on other changes and in
	// sessions recorded before it existed.
	By *Actor `json:"by,omitempty"`
}

// Progress is a node's position in the exam.
type Progress struct {
	CurrentNodeIndex int `json:"currentNodeIndex"` // 1-based
	TotalNodes       int `json:"totalNodes"`
}

// NodeEnteredPayload reports entry into a node. EvidenceTargets is stripped for the candidate.
type NodeEnteredPayload struct {
	NodeID          string   `json:"nodeId"`
	Kind            string   `json:"kind"`
	Persona         string   `json:"persona,omitempty"`
	Scenario        string   `json:"scenario,omitempty"`
	EvidenceTargets []string `json:"evidenceTargets,omitempty"`
	MaxFollowUps    int      `json:"maxFollowUps"`
	TimeBudgetSec   int      `json:"timeBudgetSec,omitempty"`
	Progress        Progress `json:"progress"`
	From            string   `json:"from,omitempty"`
	Reason          string   `json:"reason,omitempty"` // transition reason that led here
	// DeadlineAt is when the node's budget runs out (RFC 3339), so views tick from the runtime's
	// deadline rather than counting ticks. Empty while paused or without a budget.
	DeadlineAt string `json:"deadlineAt,omitempty"`
	// RequiredEvidenceCount, MaxOffTopicRedirects and MaxClarifications are the node's limits,
	// so the console can show counts against them before the first turn. Zero means unknown.
	RequiredEvidenceCount int `json:"requiredEvidenceCount,omitempty"`
	MaxOffTopicRedirects  int `json:"maxOffTopicRedirects,omitempty"`
	MaxClarifications     int `json:"maxClarifications,omitempty"`
	// Variant is the version of the node's question the runtime drew (docs/exam-format.md,
	// "Variants and draws"), VariantDraw how; both empty for a node without variants. A resume
	// and a replay take the variant from here. Withheld from the candidate.
	Variant     string      `json:"variant,omitempty"`
	VariantDraw VariantDraw `json:"variantDraw,omitempty"`
}

// NodeExitPayload reports leaving a node.
type NodeExitPayload struct {
	NodeID        string     `json:"nodeId"`
	Reason        ExitReason `json:"reason"` // a transition's spec.Reason or ExitReasons (enum_exit.go)
	Next          string     `json:"next,omitempty"`
	ElapsedMs     int64      `json:"elapsedMs"`
	FollowUps     int        `json:"followUps"`
	EvidenceCount int        `json:"evidenceCount"`
}

// TranscriptSegmentPayload is one candidate or examiner segment (pipecat-adapter §7).
type TranscriptSegmentPayload struct {
	SegmentID   string      `json:"segmentId"`
	NodeID      string      `json:"nodeId"`
	Speaker     Speaker     `json:"speaker"` // candidate | examiner
	Text        string      `json:"text"`
	Confidence  float64     `json:"confidence"`
	TimestampMs int64       `json:"timestampMs"`
	DurationMs  int64       `json:"durationMs"`
	IsFinal     bool        `json:"isFinal"`
	Source      InputSource `json:"source,omitempty"` // typed | mic | room
	// Overheard marks candidate words that took no turn (Controller.Overheard): a backchannel
	// held over the examiner's line. A not_assessed names the segment with its reason.
	Overheard bool `json:"overheard,omitempty"`
}

// Latency is a per-turn breakdown by stage, in milliseconds; zero means "not measured".
type Latency struct {
	EndpointingMs   float64 `json:"endpointingMs,omitempty"`
	STTMs           float64 `json:"sttMs,omitempty"`
	LLMFirstTokenMs float64 `json:"llmFirstTokenMs,omitempty"`
	LLMCompleteMs   float64 `json:"llmCompleteMs,omitempty"`
	FiltersMs       float64 `json:"filtersMs,omitempty"`
	TTSFirstByteMs  float64 `json:"ttsFirstByteMs,omitempty"`
	TotalMs         float64 `json:"totalMs,omitempty"`
}

// DecisionStep is one rule the controller evaluated, for the Debug view.
type DecisionStep struct {
	Rule   string `json:"rule"`
	Fired  bool   `json:"fired"`
	Detail string `json:"detail,omitempty"`
}

// Decision is what the controller did with an observation.
type Decision struct {
	Action   DecisionAction `json:"action"` // command | transition | follow_up | continue | end | discarded
	Reason   string         `json:"reason,omitempty"`
	NextNode string         `json:"nextNode,omitempty"`
	Trace    []DecisionStep `json:"trace,omitempty"`
}

// ObservationPayload is the examiner's raw report and the controller's decision, for debugging.
type ObservationPayload struct {
	NodeID   string          `json:"nodeId"`
	Turn     int             `json:"turn"`
	Examiner string          `json:"examiner"`
	Raw      json.RawMessage `json:"raw,omitempty"`
	Valid    bool            `json:"valid"`
	Problems []string        `json:"problems,omitempty"`
	Decision Decision        `json:"decision"`
	Latency  Latency         `json:"latency"`
	// Usage is the examiner call's token usage; absent for an examiner that uses no model
	// (offline) and when no reply came.
	Usage *TurnUsage `json:"usage,omitempty"`
	// Settles are the queued instructions carried out by the sentences streamed before the
	// call completed, as on a spoken line (SpokenPayload.Settles), and those the examiner
	// reported it cannot act on (not_actionable).
	Settles []AdminInstructionPayload `json:"settles,omitempty"`
}

// STTSummary summarises the STT confidence of the segments behind a signal.
type STTSummary struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// EvidenceUpdatePayload reports an accepted evidence signal.
type EvidenceUpdatePayload struct {
	NodeID        string     `json:"nodeId"`
	SignalType    string     `json:"signalType"`
	RubricLevel   string     `json:"rubricLevel,omitempty"`
	Excerpt       string     `json:"excerpt"`
	Confidence    float64    `json:"confidence"`
	STTConfidence STTSummary `json:"sttConfidenceSummary"`
	Coverage      float64    `json:"coverage"` // accepted distinct targets / node targets
	Accepted      int        `json:"accepted"`
	Required      int        `json:"required"`
	Transversal   bool       `json:"transversal,omitempty"`
	// OtherNode marks a signal NodeID (the node it was heard in) does not listen for:
	// another node's evidence, which counts for marking but not for this node's coverage.
	OtherNode     bool           `json:"otherNode,omitempty"`
	Misconception *Misconception `json:"misconception,omitempty"`
	// ScaffoldingIntensity (0–3) and ScaffoldingEffective carry the examiner's scaffolding
	// report with the signal into the ledger and the stream.
	ScaffoldingIntensity *int  `json:"scaffoldingIntensity,omitempty"`
	ScaffoldingEffective *bool `json:"scaffoldingEffective,omitempty"`
}

// FollowUpIssuedPayload reports a follow-up question.
type FollowUpIssuedPayload struct {
	NodeID       string `json:"nodeId"`
	FollowUpType string `json:"followUpType"`
	Count        int    `json:"count"`
	Max          int    `json:"max"`
	Text         string `json:"text,omitempty"`
}

// CommandAcknowledgedPayload reports a candidate command and what was done with it.
type CommandAcknowledgedPayload struct {
	Command  string        `json:"command"`
	NodeID   string        `json:"nodeId,omitempty"`
	Accepted bool          `json:"accepted"`
	Source   CommandSource `json:"source"` // examiner | safety_net | confirmation
	Detail   string        `json:"detail,omitempty"`
}

// TimeWarningPayload warns that a budget is running out.
type TimeWarningPayload struct {
	Scope        WarningScope `json:"scope"` // node | exam
	NodeID       string       `json:"nodeId,omitempty"`
	RemainingSec int          `json:"remainingSec"`
}

// GuardrailTriggeredPayload reports an interception (pipecat-adapter §8).
type GuardrailTriggeredPayload struct {
	Guardrail       string          `json:"guardrail"`
	NodeID          string          `json:"nodeId"`
	Action          GuardrailAction `json:"action"` // GuardrailActions (enum_guardrail.go)
	OriginalText    string          `json:"originalText"`
	ReplacementText string          `json:"replacementText"`
	// Detail says why in one line (an output filter's "FILTER_ACTION: REASON: PHRASE"); the
	// fields below carry its parts apart for an output filter, and are empty in sessions
	// stored before they existed.
	Detail string `json:"detail,omitempty"`
	// FilterAction is the output filter's own action (drop_hint, keep_first, summarize…).
	FilterAction string `json:"filterAction,omitempty"`
	// Reason is why the filter fired; Phrase the words that fired it, when it matched a phrase.
	Reason string `json:"reason,omitempty"`
	Phrase string `json:"phrase,omitempty"`
}

// RecoveryPayload reports a recovery (a rejected low-confidence signal, a retried call...).
type RecoveryPayload struct {
	Kind       RecoveryKind `json:"kind"` // RecoveryKinds (enum_recovery.go)
	NodeID     string       `json:"nodeId,omitempty"`
	SignalType string       `json:"signalType,omitempty"`
	Detail     string       `json:"detail,omitempty"`
	// SegmentID, Turn and Reason name the candidate segment a not_assessed event is about and
	// why the examiner did not observe it.
	SegmentID string            `json:"segmentId,omitempty"`
	Turn      int               `json:"turn,omitempty"`
	Reason    NotAssessedReason `json:"reason,omitempty"`
}

// AdminInstructionPayload records an examiner's instruction and who sent it.
type AdminInstructionPayload struct {
	Mode   AdminMode   `json:"mode"` // immediate | queued | control (pause, resume, skip, advance, end)
	Text   string      `json:"text"`
	Sender string      `json:"sender"`
	NodeID string      `json:"nodeId,omitempty"`
	Status AdminStatus `json:"status"` // received | applied | consumed | promoted | failed
	// Usage is what the examiner call of an immediate instruction consumed, on the event that
	// settles it (applied, not_actionable or failed); nil when no model was called.
	Usage *TurnUsage `json:"usage,omitempty"`
	// AfterRestart marks the event of a settle whose line was stored before a restart and
	// this event after it, by the resumed process (settle.go): a replay knows from it where
	// that process began (resume.go).
	AfterRestart bool `json:"afterRestart,omitempty"`
}

// BeatFiredPayload reports a pacing beat.
type BeatFiredPayload struct {
	Message string `json:"message"`
	Scope   string `json:"scope"`
	AtSec   int    `json:"atSec"`
	Wrapup  bool   `json:"wrapup,omitempty"`
}

// SpokenPayload is what was actually said to the candidate.
type SpokenPayload struct {
	NodeID      string       `json:"nodeId"`
	Text        string       `json:"text"`
	Source      SpokenSource `json:"source"` // SpokenSources (enum_speech.go)
	Intercepted bool         `json:"intercepted,omitempty"`
	TTSSpeed    float64      `json:"ttsSpeed,omitempty"`
	// Part numbers the pieces of one utterance (0-based) when it is spoken in several events:
	// sentences handed on while the examiner is still streaming, or a length-split reply.
	Part int `json:"part,omitempty"`
	// Streamed marks a part spoken before the examiner's call completed.
	Streamed bool `json:"streamed,omitempty"`
	// Settles are the queued instructions this line carried out: their admin_instruction
	// events (consumed), stored with the line that said them (runtime/settle.go).
	Settles []AdminInstructionPayload `json:"settles,omitempty"`
}

// SystemErrorPayload reports a failure the exam survived.
type SystemErrorPayload struct {
	Code    ErrorCode `json:"code"` // ErrorCodes (enum_error.go)
	Message string    `json:"message"`
	NodeID  string    `json:"nodeId,omitempty"`
}

// ExamCompletedPayload closes the stream.
type ExamCompletedPayload struct {
	State        ExamState          `json:"state"`
	Reason       string             `json:"reason,omitempty"`
	DurationMs   int64              `json:"durationMs"`
	NodesVisited []string           `json:"nodesVisited"`
	Evidence     map[string]int     `json:"evidence"` // accepted signals by type
	Coverage     map[string]float64 `json:"coverage"` // by node
}

// EventType implementations.
func (*ExamStatePayload) EventType() EventType           { return EventExamState }
func (*NodeEnteredPayload) EventType() EventType         { return EventNodeEntered }
func (*NodeExitPayload) EventType() EventType            { return EventNodeExit }
func (*TranscriptSegmentPayload) EventType() EventType   { return EventTranscriptSegment }
func (*ObservationPayload) EventType() EventType         { return EventObservation }
func (*EvidenceUpdatePayload) EventType() EventType      { return EventEvidenceUpdate }
func (*FollowUpIssuedPayload) EventType() EventType      { return EventFollowUpIssued }
func (*CommandAcknowledgedPayload) EventType() EventType { return EventCommandAcknowledged }
func (*TimeWarningPayload) EventType() EventType         { return EventTimeWarning }
func (*GuardrailTriggeredPayload) EventType() EventType  { return EventGuardrailTriggered }
func (*RecoveryPayload) EventType() EventType            { return EventRecovery }
func (*AdminInstructionPayload) EventType() EventType    { return EventAdminInstruction }
func (*BeatFiredPayload) EventType() EventType           { return EventBeatFired }
func (*SpokenPayload) EventType() EventType              { return EventSpoken }
func (*SystemErrorPayload) EventType() EventType         { return EventSystemError }
func (*ExamCompletedPayload) EventType() EventType       { return EventExamCompleted }

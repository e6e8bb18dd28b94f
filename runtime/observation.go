package runtime

// Observation is a validated report_observation call (pipecat-adapter §3). The examiner LLM
// observes; the controller decides.
type Observation struct {
	Signals            []Signal        `json:"signals"`
	CommandDetected    Command         `json:"commandDetected,omitempty"`
	AnswerQuality      AnswerQuality   `json:"answerQuality"`
	NeedsFollowUp      bool            `json:"needsFollowUp"`
	FollowUpType       string          `json:"followUpType,omitempty"`
	EvidenceSufficient bool            `json:"evidenceSufficient"`
	AnxietyDetected    bool            `json:"anxietyDetected"`
	DistressDetected   bool            `json:"distressDetected"`
	RapportMove        string          `json:"rapportMove,omitempty"`
	DialogueMove       string          `json:"dialogueMove,omitempty"`
	Misconceptions     []Misconception `json:"misconceptions,omitempty"`
	SpokenText         string          `json:"spokenText"`
}

// Signal is one evidence signal the examiner reports.
type Signal struct {
	SignalType           string  `json:"signalType"`
	RubricLevel          string  `json:"rubricLevel,omitempty"`
	Excerpt              string  `json:"excerpt"`
	Confidence           float64 `json:"confidence"`
	ScaffoldingIntensity *int    `json:"scaffoldingIntensity,omitempty"`
	ScaffoldingEffective *bool   `json:"scaffoldingEffective,omitempty"`
}

// Misconception is an error in understanding the examiner noticed.
type Misconception struct {
	Concept       string `json:"concept"`
	Misconception string `json:"misconception"`
	Correction    string `json:"correction"`
}

// Command is a candidate command.
type Command string

// Candidate commands (pipecat-adapter §10).
const (
	CmdRepeat              Command = "repeat"
	CmdClarification       Command = "clarification"
	CmdRequestRephrase     Command = "request_rephrase"
	CmdSlowDown            Command = "slow_down"
	CmdPause               Command = "pause"
	CmdThinkingAloud       Command = "thinking_aloud"
	CmdHelp                Command = "help"
	CmdSkip                Command = "skip"
	CmdReviseEarlierAnswer Command = "revise_earlier_answer"
	CmdFinish              Command = "finish"
)

// Commands lists the candidate commands.
var Commands = []Command{
	CmdRepeat, CmdClarification, CmdRequestRephrase, CmdSlowDown, CmdPause, CmdThinkingAloud,
	CmdHelp, CmdSkip, CmdReviseEarlierAnswer, CmdFinish,
}

func (c Command) String() string { return string(c) }

// AnswerQuality is the examiner's view of an answer.
type AnswerQuality string

// Answer qualities.
const (
	QualitySubstantive AnswerQuality = "substantive"
	QualityPartial     AnswerQuality = "partial"
	QualityOffTopic    AnswerQuality = "off_topic"
	QualitySilence     AnswerQuality = "silence"
	QualityUnclear     AnswerQuality = "unclear"
)

func (q AnswerQuality) String() string { return string(q) }

// Follow-up types, rapport moves and dialogue moves accepted in an observation.
var (
	FollowUpTypes = []string{"probe", "redirect", "scaffold", "challenge", "nudge", "confirm", "extend", "concede"}
	RapportMoves  = []string{"encouragement", "acknowledgement", "reassurance", "none"}
	DialogueMoves = []string{"paraphrase", "transition", "none"}
)

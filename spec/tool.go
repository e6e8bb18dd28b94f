package spec

// ReportObservationName is the name of the one tool the examiner LLM has.
const ReportObservationName = "report_observation"

// Enumerations of the report_observation schema (pipecat-adapter §3).
var (
	ObservationCommands       = []string{"repeat", "clarification", "request_rephrase", "slow_down", "pause", "thinking_aloud", "help", "skip", "revise_earlier_answer", "finish"}
	ObservationAnswerQuality  = []string{"substantive", "partial", "off_topic", "silence", "unclear"}
	ObservationFollowUpTypes  = []string{"probe", "redirect", "scaffold", "challenge", "nudge", "confirm", "extend", "concede"}
	ObservationRapportMoves   = []string{"encouragement", "acknowledgement", "reassurance", "none"}
	ObservationDialogueMoves  = []string{"paraphrase", "transition", "none"}
	ObservationRequiredFields = []string{"signals", "answerQuality", "needsFollowUp", "evidenceSufficient", "anxietyDetected", "distressDetected", "spokenText"}
)

// MaxExcerptChars bounds a signal's excerpt.
const MaxExcerptChars = 200

const reportObservationDescription = "Report your observations about the candidate's response. " +
	"Include any evidence signals you detected, whether the candidate issued a command, " +
	"your assessment of answer quality, and what you want to say next. " +
	"Call this after every candidate response."

// ReportObservationTool returns the report_observation function definition: the only tool the
// examiner LLM is given. Each call returns a fresh value, so callers may modify it.
func ReportObservationTool() FunctionDef {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	enum := func(desc string, values []string) map[string]any {
		return map[string]any{"type": "string", "enum": toAny(values), "description": desc}
	}
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	return FunctionDef{
		Name:        ReportObservationName,
		Description: reportObservationDescription,
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"signals": map[string]any{
					"type":        "array",
					"description": "Evidence signals observed in the candidate's response",
					"items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"signalType":  str("Evidence type from the assessment rubric"),
							"rubricLevel": str("Observed rubric level (e.g., description, analysis, evaluation)"),
							"excerpt": map[string]any{
								"type": "string", "maxLength": MaxExcerptChars,
								"description": "Short quote from the candidate (max 200 chars)",
							},
							"confidence": map[string]any{
								"type": "number", "minimum": 0, "maximum": 1,
								"description": "Confidence that this signal was demonstrated (0.0-1.0)",
							},
							"scaffoldingIntensity": map[string]any{
								"type": "integer", "minimum": 0, "maximum": 3,
								"description": "How much scaffolding was provided before this signal (0-3)",
							},
							"scaffoldingEffective": boolean("Whether the candidate improved after scaffolding"),
						},
						"required":             toAny([]string{"signalType", "excerpt", "confidence"}),
						"additionalProperties": false,
					},
				},
				"commandDetected":    enum("If the candidate issued a command instead of answering", ObservationCommands),
				"answerQuality":      enum("Assessment of the candidate's response quality", ObservationAnswerQuality),
				"needsFollowUp":      boolean("Whether you want to ask a follow-up question"),
				"followUpType":       enum("Type of follow-up you want to ask", ObservationFollowUpTypes),
				"evidenceSufficient": boolean("Whether you believe enough evidence has been gathered for this topic"),
				"anxietyDetected":    boolean("Whether you detect the candidate is anxious or stressed"),
				"distressDetected":   boolean("Beyond anxiety: whether the candidate is crying, aggressive or refusing to continue"),
				"rapportMove":        enum("Rapport move (affective; does not count as a follow-up)", ObservationRapportMoves),
				"dialogueMove":       enum("Dialogue move (structural conversation act)", ObservationDialogueMoves),
				"misconceptions": map[string]any{
					"type": "array",
					"description": "Specific misconceptions detected in the candidate's response. Use when the candidate " +
						"demonstrates incorrect understanding, not just incomplete understanding.",
					"items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"concept":       str("What the candidate misunderstood"),
							"misconception": str("The specific error in understanding"),
							"correction":    str("What correct understanding looks like"),
						},
						"required":             toAny([]string{"concept", "misconception", "correction"}),
						"additionalProperties": false,
					},
				},
				"spokenText": str("What you want to say to the candidate next"),
			},
			"required":             toAny(ObservationRequiredFields),
			"additionalProperties": false,
		},
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

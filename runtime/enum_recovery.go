package runtime

// RecoveryKind says what a recovery_event recovered from.
type RecoveryKind string

// Recovery kinds.
const (
	RecoveryUnknown RecoveryKind = ""
	// RecoveryLowConfidence: an evidence signal rejected for low STT confidence (EVD-010).
	RecoveryLowConfidence RecoveryKind = "stt_low_confidence"
	// RecoveryCalmSupport: the examiner detected anxiety; the reply is kept calm.
	RecoveryCalmSupport RecoveryKind = "calm_support"
	// RecoveryBargeIn: the candidate spoke over the examiner; the context keeps what was heard.
	RecoveryBargeIn RecoveryKind = "barge_in"
	// RecoverySilenceCheckIn, RecoverySilenceRepeat, RecoverySilenceTimeout: the silence
	// check-in's three stages (a neutral check-in, the question repeated, the timeout path).
	RecoverySilenceCheckIn RecoveryKind = "silence_check_in"
	RecoverySilenceRepeat  RecoveryKind = "silence_repeat"
	RecoverySilenceTimeout RecoveryKind = "silence_timeout"
	// RecoveryLLMRetry: a retried examiner call. No writer emits it today; the control room
	// counts it, so the word is kept here.
	RecoveryLLMRetry RecoveryKind = "llm_retry"
	// RecoveryNotAssessed: a candidate segment with words that the examiner did not observe,
	// with its reason (NotAssessedReason) and the segment it names.
	RecoveryNotAssessed RecoveryKind = "not_assessed"
)

// RecoveryKinds lists every recovery kind.
var RecoveryKinds = []RecoveryKind{RecoveryLowConfidence, RecoveryCalmSupport, RecoveryBargeIn,
	RecoverySilenceCheckIn, RecoverySilenceRepeat, RecoverySilenceTimeout, RecoveryLLMRetry, RecoveryNotAssessed}

func (k RecoveryKind) String() string { return string(k) }

// Valid reports whether k is a known recovery kind.
func (k RecoveryKind) Valid() bool { return isKnown(k, RecoveryKinds) }

// ParseRecoveryKind parses a recovery kind.
func ParseRecoveryKind(s string) (RecoveryKind, error) {
	return parseEnum("recovery kind", s, RecoveryKinds)
}

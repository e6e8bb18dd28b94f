package runtime

// SpeechStage names the speech stage a speech_usage event counts.
type SpeechStage string

// Speech stages.
const (
	SpeechStageUnknown SpeechStage = ""
	// SpeechSTT is speech recognition: the candidate's audio sent to be transcribed.
	SpeechSTT SpeechStage = "stt"
	// SpeechTTS is speech synthesis: the examiner's text sent to be spoken.
	SpeechTTS SpeechStage = "tts"
)

// SpeechStages lists every speech stage.
var SpeechStages = []SpeechStage{SpeechSTT, SpeechTTS}

func (s SpeechStage) String() string { return string(s) }

// Valid reports whether s is a known speech stage.
func (s SpeechStage) Valid() bool { return isKnown(s, SpeechStages) }

// ParseSpeechStage parses "stt" or "tts".
func ParseSpeechStage(s string) (SpeechStage, error) {
	return parseEnum("speech stage", s, SpeechStages)
}

// CallKind says which examiner call a call_usage event counts.
type CallKind string

// Call kinds.
const (
	CallUnknown CallKind = ""
	// CallSpeculation is a speculative call (Controller.Speculate) whose reply was not used.
	CallSpeculation CallKind = "speculation"
)

// CallKinds lists every call kind.
var CallKinds = []CallKind{CallSpeculation}

func (k CallKind) String() string { return string(k) }

// Valid reports whether k is a known call kind.
func (k CallKind) Valid() bool { return isKnown(k, CallKinds) }

// ParseCallKind parses "speculation".
func ParseCallKind(s string) (CallKind, error) { return parseEnum("call kind", s, CallKinds) }

package headless

// Timeout phases of a room run's reply measurement, as a voice-agent test adapter names them.
const (
	// PhaseFirstChunk: the examiner sent no audio within the reply timeout.
	PhaseFirstChunk = "first-chunk"
	// PhaseReply: the reply went on past the hard cap (--max-reply) and was cut there.
	PhaseReply = "reply"
	// PhaseTransport: the room connection failed (a dead or unreachable server).
	PhaseTransport = "transport"
)

// ReplyTimeout says which wait of a reply ran out, and after how long.
type ReplyTimeout struct {
	Phase   string  `json:"phase"` // first-chunk | reply | transport
	AfterMs float64 `json:"afterMs"`
	// Cause is the transport error under a first-chunk timeout (the candidate's connection was
	// down when the wait ran out), so a silent examiner is told from a broken room.
	Cause string `json:"cause,omitempty"`
}

// Clip is one side's part of a reply as its own recording: when it began and ended (since the
// exam started), what was said, and the WAV holding just that audio (none for a typed line).
type Clip struct {
	WAV        string  `json:"wav,omitempty"`
	StartMs    float64 `json:"startMs"`
	EndMs      float64 `json:"endMs"`
	Transcript string  `json:"transcript"`
}

// SpeakingEvent is one change on the room's timeline: a side started or stopped speaking.
type SpeakingEvent struct {
	AtMs  float64 `json:"atMs"`  // since the exam started
	Who   string  `json:"who"`   // candidate | examiner
	Event string  `json:"event"` // start | stop
}

// CutOff is the examiner starting to speak during a pause inside one candidate say line.
type CutOff struct {
	PauseAtMs    float64 `json:"pauseAtMs"` // when the candidate's pause began, since the exam started
	PauseMs      float64 `json:"pauseMs"`
	ExaminerAtMs float64 `json:"examinerAtMs"` // when the examiner's audio began
	Expected     bool    `json:"expected,omitempty"`
}

// BargeIn is what an interrupt step measured: how long the examiner went on after the
// candidate began to speak over it.
type BargeIn struct {
	StoppedAfterMs float64 `json:"stoppedAfterMs"`
	Stopped        bool    `json:"stopped"` // within the barge-in limit
	LimitMs        float64 `json:"limitMs"`
	// Method is how the candidate interrupted: native (the transport's interrupt message,
	// measured from its sending) or timing (speaking over the examiner, measured from the
	// first voiced sample).
	Method string `json:"method,omitempty"`
}

// Interruption methods of a room run (VoiceReport.Interruption, BargeIn.Method).
const (
	// InterruptNative: the candidate sends the transport's interrupt message (a stop on the
	// candidate-input topic) and then its line.
	InterruptNative = "native"
	// InterruptTiming: the candidate speaks over the examiner and the bot's voice activity
	// detection must notice.
	InterruptTiming = "timing"
)

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
}

package audio

// State is what the voice loop is doing, for the console's status line.
type State int

// States.
const (
	StateListening        State = iota // waiting for the candidate
	StateSpeaking                      // the candidate is speaking
	StateThinking                      // the turn ended; recognition and the examiner are working
	StateExaminerSpeaking              // examiner speech is playing
)

func (s State) String() string {
	switch s {
	case StateListening:
		return "listening"
	case StateSpeaking:
		return "speaking"
	case StateThinking:
		return "thinking"
	case StateExaminerSpeaking:
		return "examiner speaking"
	}
	return "unknown"
}

// EventKind names a voice event.
type EventKind int

// Event kinds.
const (
	EventState         EventKind = iota + 1 // State changed
	EventLevel                              // LevelDB of the latest frame, for a meter
	EventSpeechStarted                      // a candidate turn began
	EventSpeechPaused                       // the candidate went quiet inside a turn
	EventSpeechEnded                        // the turn ended (Utterance); recognition starts
	EventPartial                            // an interim transcript (Partial)
	EventFinal                              // the turn's transcript (Final)
	EventError                              // a turn was lost (Err); the loop goes on
	EventBargeIn                            // the candidate spoke over the examiner; playback stopped
)

func (k EventKind) String() string {
	switch k {
	case EventState:
		return "state"
	case EventLevel:
		return "level"
	case EventSpeechStarted:
		return "speech_started"
	case EventSpeechPaused:
		return "speech_paused"
	case EventSpeechEnded:
		return "speech_ended"
	case EventPartial:
		return "partial"
	case EventFinal:
		return "final"
	case EventError:
		return "error"
	case EventBargeIn:
		return "barge_in"
	}
	return "unknown"
}

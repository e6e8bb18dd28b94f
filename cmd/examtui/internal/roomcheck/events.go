package roomcheck

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Voice event names of the --events stream: the callback hooks of a voice-agent test adapter,
// written as they happen.
const (
	EventRunStarted      = "run_started"
	EventTurnStarted     = "turn_started"      // the candidate's step began (a line typed or spoken)
	EventTurnEnded       = "turn_ended"        // the candidate's line has been sent
	EventReplyFirstChunk = "reply_first_chunk" // the examiner's first voiced audio of a reply
	EventReplyEnded      = "reply_ended"       // tail silence, or the cap
	EventInterruptSent   = "interrupt_sent"    // the native interrupt (a stop message) left
	EventBargeIn         = "barge_in"          // the examiner fell silent (or did not) after an interruption
	EventCutOff          = "cut_off"           // the examiner spoke into a candidate's pause
	EventTimeout         = "timeout"           // a wait ran out: first-chunk, reply or transport
	EventRunEnded        = "run_ended"
)

// VoiceEvent is one line of the --events stream.
type VoiceEvent struct {
	AtMs      float64 `json:"atMs"` // since the run started
	Event     string  `json:"event"`
	Step      int     `json:"step,omitempty"`
	Kind      string  `json:"kind,omitempty"` // say | interrupt | opening
	Text      string  `json:"text,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
	AudioMs   float64 `json:"audioMs,omitempty"`
	Phase     string  `json:"phase,omitempty"`
	Error     string  `json:"error,omitempty"`
	Stopped   *bool   `json:"stopped,omitempty"`
}

// eventLog writes voice events as JSON Lines. A developer's debugging aid must never decide a
// run: a write that fails is logged (the first, then every hundredth) and counted, and the
// run goes on.
type eventLog struct {
	mu      sync.Mutex
	w       io.Writer
	log     *slog.Logger
	started time.Time
	written int
	failed  int
}

func newEventLog(w io.Writer, log *slog.Logger, started time.Time) *eventLog {
	return &eventLog{w: w, log: log, started: started}
}

// emit writes ev, stamped at when it happened.
func (e *eventLog) emit(at time.Time, ev VoiceEvent) {
	if e == nil || e.w == nil {
		return
	}
	ev.AtMs = ms(at.Sub(e.started))
	line, err := json.Marshal(ev)
	if err == nil {
		line = append(line, '\n')
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		_, err = e.w.Write(line)
	}
	if err != nil {
		e.failed++
		if e.failed == 1 || e.failed%100 == 0 {
			e.log.Warn("voice event not written; the run goes on", "event", ev.Event, "failures", e.failed, "err", err)
		}
		return
	}
	e.written++
}

func (e *eventLog) counts() (written, failed int) {
	if e == nil {
		return 0, 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.written, e.failed
}

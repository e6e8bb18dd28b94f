package voicepath

import (
	"math"

	"github.com/examtui/examtui/audio"
)

// Cause is why the examiner's speech was cut.
type Cause int

const (
	// CauseNone: the line was not cut.
	CauseNone Cause = iota
	// CauseBargeIn: the candidate spoke over the examiner.
	CauseBargeIn
	// CauseStop: the candidate asked the examiner to stop (a room client's native interrupt).
	CauseStop
	// CauseInstruction: an examiner's immediate instruction, or a line to say at once.
	CauseInstruction
	// CauseCommand: an examiner's or the system's pause, end, skip, advance or promote.
	CauseCommand
)

func (c Cause) String() string {
	switch c {
	case CauseNone:
		return "none"
	case CauseBargeIn:
		return "barge-in"
	case CauseStop:
		return "stop"
	case CauseInstruction:
		return "instruction"
	case CauseCommand:
		return "command"
	}
	return "unknown"
}

// reported says whether the controller is told of a cut of this cause and what the candidate
// heard of the line (Controller.SpeechInterrupted: the examiner's context keeps only that, and
// the session records a barge_in). A command's cut is not: the controller ordered it itself.
func (c Cause) reported() bool { return c != CauseCommand }

// Interrupt cuts the examiner short: the lines not yet said are dropped and the one being said
// stops at once, wherever it is (playing, or between two sentences being synthesised).
func (p *Path) Interrupt(c Cause) { p.interrupt(c, math.MaxInt64) }

// interrupt is Interrupt for the lines of events numbered below before: an interruption that
// arrives as an event leaves the lines that came after it (an instruction's own line) alone.
func (p *Path) interrupt(c Cause, before int64) {
	dropped, cut := p.queue.interrupt(c, before)
	if cut {
		p.v.StopSpeaking()
	}
	if dropped > 0 || cut {
		p.log.Info("voice: examiner speech stopped", "why", c.String(), "droppedLines", dropped, "cut", cut)
	}
}

// bargeInDecision is the barge-in decision: whether what the candidate has said over the
// examiner's line so far cuts it (only with WithBargeIn). It runs on the capture loop at every
// frame of such a turn and must not block. The rule: enough voiced speech (audio.EnoughSpeech,
// audio.DefaultBargeInSpeech unless audio.WithBargeInSpeech), evidence of speech rather than a
// level, so an echo canceller's burst does not cut the examiner.
func (p *Path) bargeInDecision(e audio.BargeInEvidence) bool { return audio.EnoughSpeech(e) }

// bargedIn is the candidate speaking over the examiner, once bargeInDecision said so; the
// pipeline has already stopped the playback. The rest of the reply is dropped too, and the
// controller hears what was heard (speak.go).
func (p *Path) bargedIn(atMs int64) {
	p.log.Info("voice: the candidate spoke over the examiner", "atMs", atMs)
	p.Interrupt(CauseBargeIn)
}

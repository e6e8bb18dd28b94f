package voicepath

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
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

// englishVocabulary is the words of a path built without WithVocabulary.
var englishVocabulary = runtime.EnglishVocabulary()

// DefaultBackchannelLength is how much voiced audio a candidate's sound over the examiner's
// line may have and still be a backchannel ("mm-hmm", "yeah", "okay", "right", a cough, a
// laugh): about 250 to 550 ms spoken (the voice-activity detector counts up to about 700 ms of
// it, with its onset and hangover), and a cough or a laugh's burst is shorter. A run past it
// is an interruption whatever its words; a shorter one is held until its words are recognised.
const DefaultBackchannelLength = 800 * time.Millisecond

// bargeInDecision is the barge-in decision: whether what the candidate has said over the
// examiner's line so far cuts it (only with WithBargeIn). It runs on the capture loop at every
// frame of such a turn and must not block. The rule: the voiced run must pass the length a
// backchannel never has (WithBackchannelLength) — evidence of speech rather than a level, so
// an echo canceller's burst, a cough or an "mm-hmm" does not cut the examiner. A shorter turn
// is held: its words decide once recognised (heldTurn).
func (p *Path) bargeInDecision(e audio.BargeInEvidence) bool {
	if audio.EnoughSpeech(e) && e.Voiced >= p.cfg.backchannel {
		p.held.Store(-1)
		return true
	}
	p.held.Store(e.TurnStartMs)
	return false
}

// heldTurn decides a turn the candidate began over the examiner's line that was too short to
// cut it, once its words are known. It reports whether the turn goes on to the controller.
// Only a backchannel or nothing (a cough, a laugh): the line plays on and the sound is no
// turn, so the examiner is not asked to answer an "mm-hmm". Any other words ("wait", "sorry?")
// are an interruption: the line is cut now, the controller hears what was heard of it, then
// the turn.
func (p *Path) heldTurn(ft audio.FinalTranscript) bool {
	if at := p.held.Load(); at < 0 || at != ft.StartMs {
		return true
	}
	p.held.Store(-1)
	if strings.TrimSpace(ft.Text) == "" || p.cfg.vocab.OnlyBackchannel(ft.Text) {
		p.log.Info("voice: a backchannel over the examiner's line, not a barge-in", "text", ft.Text, "ms", ft.DurationMs)
		return false
	}
	if !p.queue.idle() {
		p.log.Info("voice: the candidate interrupted the examiner", "text", ft.Text)
		p.Interrupt(CauseBargeIn)
		// The controller hears of the cut (speak.go) before the turn that made it.
		ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
		defer cancel()
		_ = p.WaitIdle(ctx)
	}
	return true
}

// bargedIn is the candidate speaking over the examiner, once bargeInDecision said so; the
// pipeline has already stopped the playback. The rest of the reply is dropped too, and the
// controller hears what was heard (speak.go).
func (p *Path) bargedIn(atMs int64) {
	p.log.Info("voice: the candidate spoke over the examiner", "atMs", atMs)
	p.Interrupt(CauseBargeIn)
}

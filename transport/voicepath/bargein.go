package voicepath

import (
	"context"
	"math"
	"slices"
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
	} else if idle, through := p.queue.idleThrough(); dropped > 0 && idle {
		// No line being said will report its end: say here that the dropped ones are over.
		p.reportLineEnd(line{seq: through, n: dropped}, 0, 0, LineDropped, true, through)
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

// DefaultPauseAfter is how much voiced audio over the examiner's line pauses it (with a sink
// that can pause, audio.Pauser): the voice-activity detector's onset (60 ms, longer than a
// click or a tap) and one frame more. The candidate hears the examiner fall silent about
// 0.2 s after they began; the words then decide whether the line is cut or plays on.
const DefaultPauseAfter = 80 * time.Millisecond

// DefaultFalseCutTimeout is how long a paused line waits for the words of the sound that paused
// it, counted from the last frame of that sound's turn (its endpoint): with no words by then
// (the recogniser dropped it, or is slow) the line plays on. Words that come later still
// decide: an interruption then cuts the line.
const DefaultFalseCutTimeout = 1500 * time.Millisecond

// gateAction is what the barge-in gate asks of the examiner's line.
type gateAction int

const (
	gateNone   gateAction = iota
	gatePause             // hold the line where it is
	gateResume            // play the held line on from where it was held
	gateCut               // cut the line (a barge-in)
)

func (a gateAction) String() string {
	switch a {
	case gateNone:
		return "none"
	case gatePause:
		return "pause"
	case gateResume:
		return "resume"
	case gateCut:
		return "cut"
	}
	return "unknown"
}

// maxHeld bounds the turns the gate holds at once: a turn whose words never come (the
// recogniser dropped it) is forgotten once this many newer ones are held.
const maxHeld = 8

// bargeGate decides what a candidate's sound over the examiner's line does to it, on the
// evidence as it comes: the voiced audio of each turn over the line (frame by frame), the
// words of each turn once recognised, and the clock. Times are passed in, so a test runs it
// on a virtual clock. The rule:
//   - a voiced run of pauseAfter pauses the line (onset → pause), once per pause;
//   - a voiced run of cutAfter (a backchannel's length) cuts it at once;
//   - a held turn's words decide: a backchannel or nothing, and no other turn still held →
//     the paused line resumes from where it paused; any other words → a cut;
//   - a pause with no words for timeout after the last frame of the turns over the line →
//     it resumes (the words, when they come, still decide);
//   - the line ending (said to its end, or cut by anything) ends its pause.
//
// It is not safe for concurrent use (Path guards it).
type bargeGate struct {
	pauseAfter, cutAfter, timeout time.Duration

	held     []int64   // starts (ms) of the turns over the line whose words are not known yet
	paused   bool      // the line is held
	deadline time.Time // when a pause with no words resumes (zero: none pending)
}

// evidence is one frame of a turn over the examiner's line: its voiced audio so far.
func (g *bargeGate) evidence(e audio.BargeInEvidence, now time.Time) gateAction {
	if !slices.Contains(g.held, e.TurnStartMs) {
		g.held = append(g.held, e.TurnStartMs)
		if len(g.held) > maxHeld {
			g.held = g.held[len(g.held)-maxHeld:]
		}
	}
	switch {
	case audio.EnoughSpeech(e) && e.Voiced >= g.cutAfter:
		g.forget(e.TurnStartMs)
		g.paused, g.deadline = false, time.Time{}
		return gateCut
	case g.paused:
		g.deadline = now.Add(g.timeout) // the voice goes on: the wait counts from its end
	case e.Voiced >= g.pauseAfter:
		g.paused, g.deadline = true, now.Add(g.timeout)
		return gatePause
	}
	return gateNone
}

// words are the recognised words of the turn that began at start: known says it was a held
// turn (else the gate has nothing to say about it), only says they were a backchannel or
// nothing.
func (g *bargeGate) words(start int64, only bool) (known bool, act gateAction) {
	if !g.forget(start) {
		return false, gateNone
	}
	if !only {
		g.paused, g.deadline = false, time.Time{}
		return true, gateCut
	}
	if g.paused && len(g.held) == 0 {
		g.paused, g.deadline = false, time.Time{}
		return true, gateResume
	}
	return true, gateNone
}

// tick is the clock: a pause that has waited its timeout for words resumes.
func (g *bargeGate) tick(now time.Time) gateAction {
	if !g.paused || g.deadline.IsZero() || now.Before(g.deadline) {
		return gateNone
	}
	g.paused, g.deadline = false, time.Time{}
	return gateResume
}

// lineEnded is the line ending, however it ended: its pause ends with it (the turns stay
// held: their words still decide).
func (g *bargeGate) lineEnded() { g.paused, g.deadline = false, time.Time{} }

// forget drops a held turn and reports whether it was held.
func (g *bargeGate) forget(start int64) bool {
	i := slices.Index(g.held, start)
	if i < 0 {
		return false
	}
	g.held = slices.Delete(g.held, i, i+1)
	return true
}

// bargeInDecision is the barge-in decision: whether what the candidate has said over the
// examiner's line so far cuts it (only with WithBargeIn). It runs on the capture loop at every
// frame of such a turn and must not block. The gate (bargeGate) decides: the onset pauses the
// line, a run past a backchannel's length cuts it (evidence of speech rather than a level, so
// an echo canceller's burst, a cough or an "mm-hmm" does not cut the examiner), and a shorter
// turn is held: its words decide once recognised (heldTurn).
func (p *Path) bargeInDecision(e audio.BargeInEvidence) bool {
	p.gateMu.Lock()
	act := p.gate.evidence(e, time.Now())
	deadline := p.gate.deadline
	p.gateMu.Unlock()
	switch act {
	case gateCut:
		return true
	case gatePause:
		if p.v.PauseSpeaking() {
			p.log.Info("voice: the examiner paused for the candidate's voice", "turnMs", e.TurnStartMs, "voiced", e.Voiced)
		}
	}
	if !deadline.IsZero() {
		p.gateTimer.Reset(time.Until(deadline))
	}
	return false
}

// gateTimeout is the gate's timer: a pause that waited long enough for words resumes.
func (p *Path) gateTimeout() {
	p.gateMu.Lock()
	act := p.gate.tick(time.Now())
	deadline := p.gate.deadline
	p.gateMu.Unlock()
	if act == gateResume {
		p.log.Info("voice: no words came for the sound over the examiner's line; the line plays on")
		p.v.ResumeSpeaking()
	} else if !deadline.IsZero() {
		p.gateTimer.Reset(time.Until(deadline))
	}
}

// lineEnded ends the gate's pause with the line (speak.go).
func (p *Path) lineEnded() {
	p.gateMu.Lock()
	p.gate.lineEnded()
	p.gateMu.Unlock()
}

// heldTurn decides a turn the candidate began over the examiner's line that was too short to
// cut it, once its words are known. It reports whether the turn goes on to the controller.
// Only a backchannel or nothing (a cough, a laugh): the line plays on (a paused line resumes
// from where it paused) and the sound is no turn, so the examiner is not asked to answer an
// "mm-hmm". Any other words ("wait", "sorry?") are an interruption: the line is cut now, the
// controller hears what was heard of it, then the turn.
func (p *Path) heldTurn(ft audio.FinalTranscript) bool {
	only := strings.TrimSpace(ft.Text) == "" || p.cfg.vocab.OnlyBackchannel(ft.Text)
	p.gateMu.Lock()
	known, act := p.gate.words(ft.StartMs, only)
	p.gateMu.Unlock()
	if !known {
		return true
	}
	if only {
		p.log.Info("voice: a backchannel over the examiner's line, not a barge-in; the line plays on", "text", ft.Text, "ms", ft.DurationMs, "resumed", act == gateResume)
		if act == gateResume {
			p.v.ResumeSpeaking()
		}
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

// pausable is the sink s wraps, able to pause (audio.Pauser) when the sink under it is.
func pausable(s audio.Sink, under audio.Sink) audio.Sink {
	pz, ok := under.(audio.Pauser)
	if !ok {
		return s
	}
	if ss, ok := s.(audio.StreamSink); ok { // and keeps its stream
		return struct {
			audio.StreamSink
			audio.Pauser
		}{ss, pz}
	}
	return struct {
		audio.Sink
		audio.Pauser
	}{s, pz}
}

// bargedIn is the candidate speaking over the examiner, once bargeInDecision said so; the
// pipeline has already stopped the playback. The rest of the reply is dropped too, and the
// controller hears what was heard (speak.go).
func (p *Path) bargedIn(atMs int64) {
	p.log.Info("voice: the candidate spoke over the examiner", "atMs", atMs)
	p.Interrupt(CauseBargeIn)
}

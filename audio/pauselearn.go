package audio

import "time"

// falseEndWindow: speech that starts this soon after a turn was ended on a complete answer
// continues that answer. The examiner's reply is audible about 70 ms after the end and a
// listener reacts to it 200 ms later at the earliest, so speech that begins inside the window
// was not a reply to the examiner.
const falseEndWindow = 500 * time.Millisecond

// LearnedPause is a short pause the candidate went on after: a complete answer of theirs must
// not end inside a pause that long.
type LearnedPause struct {
	// Pause is the silence the candidate went on after: from the last voiced sample to the
	// first of the resumed speech.
	Pause time.Duration
	// Wait is the least wait every complete answer gets from now on (Endpointer.LearnedWait):
	// Pause a quarter longer and a frame, never above MinEndpointingDelay (learntWait).
	Wait time.Duration
	// Where the pause was.
	Where PauseWhere
}

// PauseWhere is where a learnt pause was.
type PauseWhere int

const (
	// PauseInTurn: inside a turn, while the endpointer was still waiting.
	PauseInTurn PauseWhere = iota
	// PauseAfterEnd: the turn had ended on a complete answer's wait, and the candidate went on
	// within falseEndWindow: a false end, the examiner took the turn too early.
	PauseAfterEnd
)

func (w PauseWhere) String() string {
	if w == PauseAfterEnd {
		return "after the turn ended"
	}
	return "inside a turn"
}

// pauseLearner learns how long the candidate pauses between phrases, so a complete answer waits
// longer than that (LiveKit Agents' dynamic endpointing does the same with an average; here the
// wait only grows, because a cut-off costs more than the wait). Every pause shorter than the min
// delay teaches it unless the pause's words held the turn: a pause read as complete or sure, one
// read as too short to tell, and one resumed before its reading came back all teach, because a
// speaker who pauses 180 ms after "Hello" will pause that long after a phrase that reads as
// complete too, and a recogniser that writes no punctuation cannot tell the two apart. A pause
// the words held ("line," with its comma, "because", "um") was safe whatever its length and
// says nothing about pauses after complete words. Longer pauses are thinking pauses and teach
// nothing. A false end teaches too.
type pauseLearner struct {
	learned  time.Duration // the least wait of a complete answer; zero: nothing learnt
	pausedAt int64         // the last voiced sample before the current pause
	last     struct {
		released bool  // the last turn ended on a complete answer's wait
		end      int64 // its last voiced sample
		decided  int64 // the sample at which it ended
	}
}

// wentOn learns from speech resumed at sample at inside a turn, after the pause that began at
// pausedAt, when that pause was shorter than the min delay.
func (l *pauseLearner) wentOn(cfg EndpointConfig, at int64) *LearnedPause {
	if at-l.pausedAt >= durationSamples(cfg.MinEndpointingDelay) {
		return nil
	}
	return l.learn(cfg, at-l.pausedAt, PauseInTurn)
}

// turnStarted learns from a turn that started at sample start, when the previous turn ended on
// a complete answer less than falseEndWindow before (or just after it began: the VAD confirms
// an onset a few frames after its first sample).
func (l *pauseLearner) turnStarted(cfg EndpointConfig, start int64) *LearnedPause {
	last := l.last
	l.forgetTurn()
	if !last.released || start <= last.end || start-last.decided > durationSamples(falseEndWindow) {
		return nil
	}
	return l.learn(cfg, start-last.end, PauseAfterEnd)
}

// turnEnded notes a turn that ended at sample decided, its speech at end; released says a
// complete answer's wait ended it.
func (l *pauseLearner) turnEnded(end, decided int64, released bool) {
	l.last.released, l.last.end, l.last.decided = released, end, decided
}

func (l *pauseLearner) forgetTurn() { l.last.released = false }

func (l *pauseLearner) learn(cfg EndpointConfig, samples int64, where PauseWhere) *LearnedPause {
	if samples <= 0 {
		return nil
	}
	pause := time.Duration(samples) * time.Second / SampleRate
	wait := learntWait(cfg, pause)
	if wait <= l.learned {
		return nil
	}
	l.learned = wait
	return &LearnedPause{Pause: pause, Wait: wait, Where: where}
}

// learntWait is the wait that covers a pause the candidate went on after: the pause a quarter
// longer (one candidate's pauses in the same place vary; in the room test two "same" pauses
// were 320 and 340 ms), and a frame (the wait is decided on frame boundaries), never above the
// min delay.
func learntWait(cfg EndpointConfig, pause time.Duration) time.Duration {
	return min(pause+pause/4+FrameDuration, cfg.MinEndpointingDelay)
}

// resumedAt is the first sample of the speech that resumed on this frame.
func resumedAt(vr VADResult, f Frame) int64 {
	if vr.Started {
		return vr.StartOffset
	}
	return f.Offset
}

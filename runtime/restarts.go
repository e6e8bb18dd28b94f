package runtime

import "time"

// Restarts finds, in one session's events read in order, where a resumed process restarted
// the exam's clocks, and how long they had stood: the replay (restore) and every reader that
// keeps clocks of its own (the console's timers, the control room) use it, so they leave out
// the same downtime the controller did.
//
// A resumed process restarts the clocks at the first event it emits (emitAt). That is its
// resume line or its entry into the next node, unless it first records what the dead process
// left: the candidate's turn during the examiner's call (not_assessed, restarted) and settles
// whose admin_instruction event was lost (afterRestart). Those are marked, and the line or
// node entry after them belongs to the same restart.
type Restarts struct {
	prev     time.Time
	preamble bool // the last event was one a resumed process records before its resume line
}

// Gap reports how long the exam's clocks stood before ev, which carries p, when ev is where a
// resumed process restarted them while the exam was in state; 0 otherwise. Call it for every
// event, in order.
func (r *Restarts) Gap(ev Event, p Payload, state ExamState) time.Duration {
	return r.step(ev.Timestamp, p, state, resumeLine(p))
}

// step is Gap with the controller's own knowledge of whether p opens a resume (resumedHere:
// a node entry that completes a cut transition counts too).
func (r *Restarts) step(ts time.Time, p Payload, state ExamState, opens bool) time.Duration {
	prev, wasPreamble := r.prev, r.preamble
	r.prev, r.preamble = ts, restartPreamble(p)
	if state != StateInProgress || prev.IsZero() || !ts.After(prev) {
		return 0
	}
	if (r.preamble || opens) && !wasPreamble {
		return ts.Sub(prev)
	}
	return 0
}

// resumeLine reports whether p is the line a resumed exam in progress opens with.
func resumeLine(p Payload) bool {
	sp, ok := p.(*SpokenPayload)
	return ok && sp.Source == SpokenResume
}

// restartPreamble reports whether p is one of the events a resumed process records before its
// resume line or node entry (continueResumed).
func restartPreamble(p Payload) bool {
	switch p := p.(type) {
	case *RecoveryPayload:
		return p.Kind == RecoveryNotAssessed && p.Reason == NotAssessedRestarted
	case *AdminInstructionPayload:
		return p.AfterRestart
	}
	return false
}

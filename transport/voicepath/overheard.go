package voicepath

import (
	"context"
	"errors"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// takesTurn is the held-turn decision (heldTurn) with its record: words that take no turn (a
// backchannel held over the examiner's line) are reported to the controller. It reports
// whether ft goes on to the controller as a turn.
func (p *Path) takesTurn(ft audio.FinalTranscript) bool {
	if p.heldTurn(ft) {
		return true
	}
	p.overheard(ft, runtime.NotAssessedBackchannel, "a backchannel held over the examiner's line: the line went on")
	return false
}

// overheard reports words the path recognised but does not hand over as a turn, so that the
// candidate's words are never lost without a record: the controller writes them to the
// transcript with a not_assessed and its reason (runtime.Controller.Overheard), and decides
// nothing on them. A sound with no words (a cough, a laugh) is no segment and is not reported.
func (p *Path) overheard(ft audio.FinalTranscript, reason runtime.NotAssessedReason, detail string) {
	turn, ok := p.turnOf(ft)
	if !ok {
		return
	}
	p.refused("overheard words", turn.Text, p.ctrl.Overheard(p.ctx, turn, reason, detail))
}

// refused logs why the controller did not take the candidate's words (what: a spoken turn, or
// overheard words), if it did not: after the exam's end there is no session left to record
// them in, which is no fault of the path's.
func (p *Path) refused(what, text string, err error) {
	switch {
	case err == nil:
	case errors.Is(err, runtime.ErrExamOver), errors.Is(err, runtime.ErrClosed), errors.Is(err, context.Canceled):
		p.log.Info("voice: words after the exam", "what", what, "text", text, "err", err)
	default:
		p.log.Warn("voice: words not accepted", "what", what, "text", text, "err", err)
	}
}

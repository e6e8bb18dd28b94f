package voicepath

import "github.com/examtui/examtui/runtime"

// Deliver receives the exam's events (a runtime.Subscriber; it never blocks): the examiner's
// spoken lines are queued to be said in the node's persona's voice; a pause or an immediate
// instruction cuts what is being said.
func (p *Path) Deliver(ev runtime.Event) {
	switch ev.Event {
	case runtime.EventObservation:
		p.timer.observed(observationAt(ev))
		return
	case runtime.EventNodeEntered, runtime.EventSpoken, runtime.EventExamState, runtime.EventAdminInstruction:
	default:
		return
	}
	pl, err := ev.Decode()
	if err != nil {
		p.log.Error("voice: event does not decode", "seq", ev.Seq, "event", ev.Event, "err", err)
		return
	}
	switch pl := pl.(type) {
	case *runtime.NodeEnteredPayload:
		p.nodeMu.Lock()
		p.nodeID = pl.NodeID
		p.nodeMu.Unlock()
	case *runtime.SpokenPayload:
		if p.v.CanSpeak() {
			p.queue.push(line{text: pl.Text, opts: p.speakOptions(pl), seq: ev.Seq, n: 1, timing: p.timer.spoken()})
		}
	case *runtime.ExamStatePayload:
		if pl.State == runtime.StatePaused {
			p.interrupt(CauseCommand, ev.Seq)
		}
	case *runtime.AdminInstructionPayload:
		if pl.Mode.Interrupts() && pl.Status == runtime.AdminReceived {
			p.interrupt(CauseInstruction, ev.Seq)
		}
	}
}

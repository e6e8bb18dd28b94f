package runtime

import (
	"slices"
	"strings"
)

// A queued instruction goes into one examiner call's context and is consumed when the reply
// that carried it out is said. The settle must be as durable as the line: a process that dies
// after the line and before a separate admin_instruction event would resume with the
// instruction still queued (carried into the next turn, and never consumed if the exam ended
// first). So the settle travels in the event that says it: the first examiner line (or, for
// sentences streamed before the call completed, the turn's observation) after which the
// instruction counts as carried out holds its admin_instruction payload in Settles, and the
// controller takes it off the queue there, live and in the replay alike. The admin_instruction
// events that consoles and the candidate's record read still follow at the end of the turn; a
// resume whose log lost them emits them first (confirmSettled), so the resumed exam holds the
// same events as the uninterrupted one. An instruction the examiner reported it cannot act on
// settles the same way, in the turn's observation (nothing is said for it).

// turnSettle is the settling of the queued instructions one examiner call carried, while its
// turn is decided (finishTurn).
type turnSettle struct {
	in      *turnInput
	nodeID  string
	instrs  []AdminInstruction // the call's queued instructions, in queue order
	settled []bool             // carried out by a line said so far
	reply   string             // the reply's spokenText, normalised
	open    bool               // the examiner's own words are being said
	said    strings.Builder    // what was said in the turn so far
}

// beginSettle starts settling the call's queued instructions (none: nil). Caller holds mu.
func (c *Controller) beginSettle(call *examinerCall, nodeID string) *turnSettle {
	n := min(call.queued, len(c.queued))
	if n == 0 {
		return nil
	}
	s := &turnSettle{in: call.in, nodeID: nodeID, instrs: slices.Clone(c.queued[:n]), settled: make([]bool, n),
		reply: normalizeWords(replySpokenText(call.in.reply))}
	for _, t := range call.in.stream.emitted {
		s.said.WriteString(" " + t)
	}
	s.open = len(call.in.stream.emitted) > 0 // streamed sentences were said before the decision
	return s
}

// replySaying marks that the examiner's own words are said from now on in this turn (its
// reply, or its wording of a command's answer): the queued instructions they carry out settle
// with the lines. Caller holds mu.
func (c *Controller) replySaying() {
	if c.settling != nil {
		c.settling.open = true
	}
}

// settlesWith is the settle events the next event carries, once text (a line being said, ""
// for the turn's observation) is said: the instructions the examiner acted on whose words, if
// the reply carried them, are now said; and, on the observation, those it reported it cannot
// act on (not_actionable), which leave the queue whatever is said. Caller holds mu.
func (c *Controller) settlesWith(text string) []AdminInstructionPayload {
	s := c.settling
	if s == nil {
		return nil
	}
	var out []AdminInstructionPayload
	if text != "" {
		s.said.WriteString(" " + text)
	} else {
		for i, a := range s.instrs {
			if !s.settled[i] && s.in.reply.adminResult(i) == AdminNotActionable {
				s.settled[i] = true
				out = append(out, AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: s.nodeID, Status: AdminNotActionable})
			}
		}
	}
	if !s.open || c.state.Terminal() && c.nodeGen != s.in.gen {
		return out
	}
	said := normalizeWords(s.said.String())
	for i, a := range s.instrs {
		if s.settled[i] || s.in.reply.adminResult(i) != AdminConsumed || cutFromReply(a.Text, s.reply, said) {
			continue
		}
		s.settled[i] = true
		out = append(out, AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: s.nodeID, Status: AdminConsumed})
	}
	return out
}

// applySettles takes the instructions an event settled off the queue, live and in the replay:
// each is in the examiner's context from now on, and its admin_instruction event is awaited
// (confirmSettled). Caller holds mu.
func (c *Controller) applySettles(settles []AdminInstructionPayload) {
	for _, p := range settles {
		c.unqueue(&p)
		c.unconfirmed = append(c.unconfirmed, p)
	}
}

// unqueue takes a settled queued instruction off the queue where it stood: one the examiner
// could not act on yet stays queued ahead of it, so the first with the same text and sender is
// the one. A consumed one stays in the examiner's context. Caller holds mu.
func (c *Controller) unqueue(p *AdminInstructionPayload) {
	i := slices.IndexFunc(c.queued, func(q AdminInstruction) bool { return q.Text == p.Text && q.Sender == p.Sender })
	if i < 0 {
		return
	}
	if p.Status == AdminConsumed {
		c.ctxm.record(adminMessage(c.queued[i], false))
	}
	c.queued = slices.Delete(slices.Clone(c.queued), i, i+1)
}

// confirmed reports whether p is the admin_instruction event of a settle a line already
// carried (and forgets it): it changes nothing more. Caller holds mu.
func (c *Controller) confirmed(p *AdminInstructionPayload) bool {
	i := slices.IndexFunc(c.unconfirmed, func(u AdminInstructionPayload) bool {
		return u.Mode == p.Mode && u.Text == p.Text && u.Sender == p.Sender && u.Status == p.Status
	})
	if i < 0 {
		return false
	}
	c.unconfirmed = slices.Delete(c.unconfirmed, i, i+1)
	return true
}

// confirmSettled emits the admin_instruction events of settles whose lines were stored but
// whose events were not (the process stopped in between): a resumed exam holds the same
// events as one never stopped. Caller holds mu.
func (c *Controller) confirmSettled() {
	for len(c.unconfirmed) > 0 {
		p := c.unconfirmed[0]
		c.unconfirmed = c.unconfirmed[1:]
		p.AfterRestart = true
		c.emit(&p)
	}
}

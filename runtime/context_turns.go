package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
)

// The live run and the resume replay build the examiner's context through the same calls, in
// the same order of the event log (docs/sessions.md, "What a resumed examiner sees"):
//
//   - what the examiner says reaches the context as it is spoken (heard, from every spoken
//     event, live in speakPart and replayed from the stored one): the parts of one utterance
//     make one assistant message, held back until the next message so a continuation part
//     can still join it;
//   - a candidate turn that goes to the examiner is an open turn (beginTurn) until its
//     observation settles it (settleTurn): decided, the candidate's words go in, followed by
//     what was streamed of the reply; discarded (the node changed during the call), neither
//     does, as the examiner's reply applied to nothing;
//   - a resume adds one developer note (resumeNote) where the exam picked up again; it counts
//     in no budget and is never summarised, so everything else stays as the uninterrupted
//     exam would have had it.

// openTurn is a candidate turn in the examiner's hands: its message and what of the reply was
// streamed before the observation.
type openTurn struct {
	candidate spec.Message
	replies   []spec.Message
}

// anchoredNote is a developer note kept beside the in-node history, after its first at
// messages, outside the budgets.
type anchoredNote struct {
	at  int
	msg spec.Message
}

// said adds part of an examiner utterance: part 0 starts a new assistant message, a later
// part continues the one being said.
func (cm *contextManager) said(text, source string, part int) {
	if cm.turn != nil {
		if part > 0 && len(cm.turn.replies) > 0 {
			last := &cm.turn.replies[len(cm.turn.replies)-1]
			last.Content += " " + text
			return
		}
		cm.turn.replies = append(cm.turn.replies, assistant(text))
		return
	}
	if part > 0 && cm.reply != nil {
		cm.reply.Content += " " + text
		return
	}
	cm.flush()
	cm.reply, cm.replySource = &spec.Message{Role: "assistant", Content: text}, source
}

// flush records the utterance being said.
// peek is a copy of the context to build a request from without changing this one (a
// speculation's): what messages flushes and compresses happens to the copy. The notes are
// copied because compression moves them in place; appends to the shared slices write only
// past this context's lengths.
func (cm *contextManager) peek() *contextManager {
	c := *cm
	c.notes = slices.Clone(cm.notes)
	return &c
}

func (cm *contextManager) flush() {
	if cm.reply == nil {
		return
	}
	r := *cm.reply
	cm.reply = nil
	cm.append(r)
}

// recordBeforeReply records msgs ahead of the utterance being said when it came from source
// (an immediate admin instruction before the examiner's words for it), else after it.
func (cm *contextManager) recordBeforeReply(source string, msgs ...spec.Message) {
	r := cm.reply
	if r == nil || cm.replySource != source {
		cm.record(msgs...)
		return
	}
	cm.reply = nil
	cm.append(msgs...)
	cm.reply = r
}

// beginTurn opens a candidate turn that goes to the examiner.
func (cm *contextManager) beginTurn(candidate spec.Message) {
	cm.flush()
	cm.turn = &openTurn{candidate: candidate}
}

// settleTurn closes the open turn: decided, its candidate message and the streamed reply go in
// (the reply stays open for the rest of its parts); discarded, nothing of it does.
func (cm *contextManager) settleTurn(decided bool) {
	t := cm.turn
	if t == nil {
		return
	}
	cm.turn = nil
	if !decided {
		return
	}
	cm.flush()
	cm.append(t.candidate)
	for i, r := range t.replies {
		if i == len(t.replies)-1 {
			cm.reply = &r
			break
		}
		cm.append(r)
	}
}

// note adds a developer note at the current end of the in-node history.
func (cm *contextManager) note(msg spec.Message) {
	cm.flush()
	cm.notes = append(cm.notes, anchoredNote{at: len(cm.history), msg: msg})
}

// resumeNote is the one note a resume adds to the examiner's context, with the line the
// candidate heard when the exam picked up again.
func resumeNote(said string) spec.Message {
	return spec.Message{Role: "developer", Content: "RESUMED (for you only; never read it aloud): the exam stopped here " +
		"for a technical reason and has just resumed; the time it was stopped does not count. The candidate has just heard: " +
		strconv.Quote(said) + " Carry on from where the conversation stands."}
}

// heard puts one spoken event into the examiner's context: live as it is spoken, on resume as
// it is replayed. The node's intro and prompt are not taken here (the node entry records them
// together); the holding line, notices and the system's own lines are not part of the exam's
// conversation and stay out; the resume line goes in as the RESUMED note.
func (c *Controller) heard(p *SpokenPayload) {
	switch p.Source {
	case SpokenIntro, SpokenPrompt, SpokenHolding, SpokenNotice, SpokenSystem:
	case "resume":
		c.ctxm.note(resumeNote(p.Text))
	default:
		c.ctxm.said(p.Text, string(p.Source), p.Part)
	}
}

// adminApplied records an immediate admin instruction that ran ahead of what the examiner
// said for it. Caller holds mu.
func (c *Controller) adminApplied(text string) {
	c.ctxm.recordBeforeReply("admin", adminMessage(AdminInstruction{Mode: AdminImmediate, Text: text}, true))
}

// heardCandidate puts a candidate turn into the context: at once when it needs no examiner
// (the candidate returning from a pause, answering a finish confirmation, or a backchannel
// after a false cut), else as the open
// turn its observation settles. It reports whether the turn goes to the examiner. Caller
// holds mu, before the turn changes the state.
func (c *Controller) heardCandidate(p *TranscriptSegmentPayload) bool {
	msg := candidateMessage(p.Text, time.Duration(p.DurationMs)*time.Millisecond)
	if c.state == StatePaused || c.pendingFinish || c.falseCut(p.Text) != "" {
		c.ctxm.record(msg)
		return false
	}
	c.ctxm.beginTurn(msg)
	return true
}

// takeCall counts an examiner call and returns its directions (takeDirections), kept until
// the call's observation.
func (c *Controller) takeCall() []string {
	d := c.takeDirections()
	c.integ.examinerCalls++
	c.integ.inCall = d
	return d
}

// settleObservation closes the open turn with its observation: discarded or decided.
func (c *Controller) settleObservation(p *ObservationPayload) {
	c.ctxm.settleTurn(p.Decision.Action != DecisionDiscarded)
	c.integ.inCall = nil
}

// lostCall repairs a log that ends during an examiner call (the process stopped before the
// observation): the candidate's words stay in the context, as said, and the call's directions
// go to the next call, which is then the first (for the opening direction) if this one was.
func (c *Controller) lostCall() {
	if c.ctxm.turn == nil {
		return
	}
	c.ctxm.settleTurn(true)
	c.integ.directions = append(c.integ.inCall, c.integ.directions...)
	c.integ.inCall = nil
	c.integ.examinerCalls--
}

// bargeInDetail and heardFromDetail write and read what the candidate heard before barging in
// (the barge_in recovery's detail), so a resume cuts the same line.
func bargeInDetail(heard string) string { return "candidate heard: " + quoteOrNothing(heard) }

func heardFromDetail(detail string) (string, bool) {
	s, ok := strings.CutPrefix(detail, "candidate heard: ")
	if !ok {
		return "", false
	}
	if s == "nothing" {
		return "", true
	}
	q, err := strconv.Unquote(s)
	if err != nil {
		return "", false
	}
	return q, true
}

// contextParity renders the whole context state for TestResumeParity.
// It renders a copy with the utterance being said recorded: when that happens (the next
// message, or a request built meanwhile) changes nothing else.
func (cm *contextManager) contextParity() string {
	cp := *cm
	cp.examSummary, cp.prior, cp.summary = slices.Clone(cm.examSummary), slices.Clone(cm.prior), slices.Clone(cm.summary)
	cp.history, cp.notes = slices.Clone(cm.history), slices.Clone(cm.notes)
	cp.flush()
	cm = &cp
	var b strings.Builder
	fmt.Fprintf(&b, "carried=%q\nexamSummary=%q\npriorSummary=%q\nprior=%q\nsummary=%q\nmodelSummary=%q\nhistory=%q\ncompressions=%d\nnotes=%+v\n",
		cm.carried, cm.examSummary, cm.priorSummary, cm.prior, cm.summary, cm.modelSummary, cm.history, cm.compressions, cm.notes)
	if p := cm.pending; p != nil {
		fmt.Fprintf(&b, "pending=%d %q %q\n", p.compression, p.previous, p.messages)
	}
	if cm.turn != nil {
		fmt.Fprintf(&b, "turn=%q\n", *cm.turn)
	}
	return b.String()
}

package runtime

import (
	"fmt"
	"math"

	"github.com/examtui/examtui/spec"
)

// TTS speed bounds for slow_down.
const (
	slowDownFactor = 0.85
	minTTSSpeed    = 0.6
)

const helpText = "This is an oral exam: I ask questions and you answer in your own words. " +
	"You can ask me to repeat or rephrase a question, to clarify it, to slow down, or to pause."

// dispatchCommand carries out a candidate command (decision step 2) and acknowledges it.
// Text the examiner wrote for the command (a clarification, a rephrasing) still goes through
// the output filters. It reports whether that text was said.
func (c *Controller) dispatchCommand(cmd Command, src CommandSource, obs Observation, valid bool) (examinerSaid bool) {
	node := c.node
	ack := func(accepted bool, detail string) {
		c.emit(&CommandAcknowledgedPayload{Command: cmd.String(), NodeID: node.NodeID, Accepted: accepted, Source: src, Detail: detail})
	}
	examinerText := func(canned string) {
		if valid && obs.SpokenText != "" {
			c.speakFiltered(node.NodeID, obs.SpokenText, SpokenCommand)
			examinerSaid = true
			return
		}
		c.speak(canned, SpokenCommand, false)
	}
	say := func(text string) {
		c.speak(text, SpokenCommand, false)
	}
	pol := c.exam.Policies
	switch cmd {
	case CmdRepeat:
		ack(true, "")
		say(c.lastQuestion)
	case CmdClarification:
		c.clarifications++
		if c.clarifications > pol.MaxClarifications {
			ack(false, fmt.Sprintf("maxClarifications %d reached", pol.MaxClarifications))
			say("I can't clarify further, so please answer as best you can. " + c.lastQuestion)
			break
		}
		ack(true, fmt.Sprintf("%d of %d", c.clarifications, pol.MaxClarifications))
		examinerText(clarifyLine(node, c.lastQuestion))
	case CmdRequestRephrase:
		ack(true, "")
		examinerText("Let me put it another way. " + c.lastQuestion)
	case CmdSlowDown:
		c.ttsSpeed = math.Max(minTTSSpeed, math.Round(c.ttsSpeed*slowDownFactor*100)/100)
		ack(true, fmt.Sprintf("ttsSpeed %.2f", c.ttsSpeed))
		say("Of course, I'll speak more slowly. " + c.lastQuestion)
	case CmdPause:
		ack(true, "")
		say("Of course. We'll pause here; tell me when you're ready to go on.")
		c.pauseExam(candidatePauseReason, Actor{Kind: ActorCandidate})
	case CmdThinkingAloud:
		ack(true, "")
		say("Take your time.")
	case CmdHelp:
		ack(true, "")
		say(helpText + " " + c.lastQuestion)
	case CmdSkip:
		if !pol.SkipAllowed || node.Kind == spec.KindEnd {
			ack(false, "skipAllowed is false")
			say("We can't skip this one, but take your time. " + c.lastQuestion)
			break
		}
		ack(true, "")
		c.transition(spec.ReasonSkipped)
	case CmdReviseEarlierAnswer:
		ack(true, "")
		say("Of course. Go ahead with what you'd like to change.")
	case CmdFinish:
		if pol.ConfirmFinish {
			c.pendingFinish = true
			ack(true, detailAwaitingConfirmation)
			say("Are you sure you want to finish the exam now?")
			break
		}
		ack(true, "")
		say("Thank you. The exam is now finished.")
		c.exitNode(ExitFinished, "")
		c.finish(StateCompleted, "candidate finished")
	}
	return examinerSaid
}

// commandDecision is the decision a command leads to, for the observation event.
func (c *Controller) commandDecision(cmd Command) Decision {
	pol := c.exam.Policies
	switch {
	case cmd == CmdSkip && pol.SkipAllowed && c.node.Kind != spec.KindEnd:
		next, _ := c.node.Successor(spec.ReasonSkipped)
		return Decision{Action: DecisionTransition, Reason: spec.ReasonSkipped.String(), NextNode: next}
	case cmd == CmdFinish && !pol.ConfirmFinish:
		return Decision{Action: DecisionEnd, Reason: cmd.String()}
	}
	return Decision{Action: DecisionCommand, Reason: cmd.String()}
}

func assistant(text string) spec.Message { return spec.Message{Role: "assistant", Content: text} }

// clarifyLine restates the situation without hinting at an answer.
func clarifyLine(node *spec.CompiledNode, question string) string {
	if s := firstSentence(node.Controller.Scenario, 240); s != "" {
		return "To put it in context: " + s + " " + question
	}
	return "Let me put it another way. " + question
}

package runtime

import (
	"fmt"
	"math"

	"github.com/examtui/examtui/spec/lang"

	"github.com/examtui/examtui/spec"
)

// TTS speed bounds for slow_down.
const (
	slowDownFactor = 0.85
	minTTSSpeed    = 0.6
)

// dispatchCommand carries out a candidate command (decision step 2) and acknowledges it.
// Text the examiner wrote for the command (a clarification, a rephrasing) still goes through
// the output filters. It reports whether that text was said.
func (c *Controller) dispatchCommand(cmd Command, src CommandSource, obs Observation, valid bool) {
	node := c.node
	ack := func(accepted bool, detail string) {
		c.emit(&CommandAcknowledgedPayload{Command: cmd.String(), NodeID: node.NodeID, Accepted: accepted, Source: src, Detail: detail})
	}
	examinerText := func(canned string) {
		if valid && obs.SpokenText != "" {
			c.replySaying() // the examiner's own words: what it was asked to say goes with them
			c.speakFiltered(node.NodeID, obs.SpokenText, SpokenCommand)
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
			say(c.lineThen(lang.LineClarifyLimit, c.lastQuestion))
			break
		}
		ack(true, fmt.Sprintf("%d of %d", c.clarifications, pol.MaxClarifications))
		examinerText(clarifyLine(c.lang, node, c.lastQuestion))
	case CmdRequestRephrase:
		ack(true, "")
		examinerText(c.lineThen(lang.LineRephrase, c.lastQuestion))
	case CmdSlowDown:
		c.ttsSpeed = math.Max(minTTSSpeed, math.Round(c.ttsSpeed*slowDownFactor*100)/100)
		ack(true, fmt.Sprintf("ttsSpeed %.2f", c.ttsSpeed))
		say(c.lineThen(lang.LineSlowDown, c.lastQuestion))
	case CmdPause:
		ack(true, "")
		say(c.line(lang.LinePause))
		c.pauseExam(candidatePauseReason, Actor{Kind: ActorCandidate})
	case CmdThinkingAloud:
		ack(true, "")
		say(c.line(lang.LineTakeYourTime))
	case CmdHelp:
		ack(true, "")
		say(c.lineThen(lang.LineHelp, c.lastQuestion))
	case CmdSkip:
		if !pol.SkipAllowed || node.Kind == spec.KindEnd {
			ack(false, "skipAllowed is false")
			say(c.lineThen(lang.LineCannotSkip, c.lastQuestion))
			break
		}
		ack(true, "")
		c.transition(spec.ReasonSkipped)
	case CmdReviseEarlierAnswer:
		ack(true, "")
		say(c.line(lang.LineRevise))
	case CmdFinish:
		if pol.ConfirmFinish {
			c.pendingFinish = true
			ack(true, detailAwaitingConfirmation)
			say(c.line(lang.LineConfirmFinish))
			break
		}
		ack(true, "")
		say(c.line(lang.LineFinished))
		c.exitNode(ExitFinished, "")
		c.finish(StateCompleted, "candidate finished")
	}
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

// ClarifyLine restates the situation without hinting at an answer, in the pack's language:
// the first sentence of the node's scenario, else the rephrase line, then the question. The
// controller and the offline examiner both say it.
func ClarifyLine(p *lang.Pack, node *spec.CompiledNode, question string) string {
	if p == nil {
		p = lang.English()
	}
	if s := firstSentence(node.Controller.Scenario, 240); s != "" {
		return p.Then(lang.LineInContext, s+" "+question)
	}
	return p.Then(lang.LineRephrase, question)
}

func clarifyLine(p *lang.Pack, node *spec.CompiledNode, question string) string {
	return ClarifyLine(p, node, question)
}

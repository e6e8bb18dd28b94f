package runtime

import (
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
)

// nodeState is what the controller knows about the node the exam is in. Entering a node,
// live (enterNode) or replayed from a stored log (resume.go), replaces it whole in resetNode,
// so a field added here starts every node at its zero value on both paths: nobody has to
// remember to reset it twice. TestResumeParity compares every field of it between a live run
// and a resume of that run's log.
type nodeState struct {
	node *spec.CompiledNode
	// nodeGen counts node entries: a turn or an admin run that outlives its node sees it change.
	nodeGen   int
	nodeClock stopwatch // active (unpaused) time in the node

	followUps      int
	offTopic       int
	clarifications int
	nodeWarned     bool // the node's time warning was given
	pendingFinish  bool // the candidate asked to finish and the controller awaits confirmation
	// lastQuestion is what "repeat" and the fallback lines say again.
	lastQuestion string
	// segments are the node's latest candidate segments, for STT provenance (maxNodeSegments).
	segments []segment

	// The silence check-in stage and the candidate activity it counts from (checkSilence).
	silenceStage    int
	silenceActivity time.Time

	// saying is the examiner's line being said (its spoken parts), and cut the rest of it from
	// the sentence a barge-in cut, until the candidate's next turn (falsecut.go).
	saying []string
	cut    string
}

// keepSegment keeps a candidate segment for STT provenance: the node's latest
// maxNodeSegments. Live turns and the replay of stored segments both use it.
func (c *Controller) keepSegment(seg segment) {
	c.segments = append(c.segments, seg)
	if len(c.segments) > maxNodeSegments {
		// A copy, so the backing array of the dropped segments can be collected.
		c.segments = append([]segment(nil), c.segments[len(c.segments)-maxNodeSegments:]...)
	}
}

// resetNode makes node the current node, entered at at: a fresh nodeState, the node clock
// running when the exam is, the visit recorded, the context moved on per the node's strategy
// (with the node's opening lines in it), and the node's own beats re-armed. Caller holds mu.
func (c *Controller) resetNode(node *spec.CompiledNode, at time.Time) {
	prev := c.nodeID()
	c.nodeState = nodeState{
		node:         node,
		nodeGen:      c.nodeGen + 1,
		nodeClock:    stopwatch{since: at},
		lastQuestion: node.Controller.ConversationPrompt,
	}
	if c.state == StateInProgress {
		c.nodeClock.start(at)
	}
	c.visited = append(c.visited, node.NodeID)
	c.ctxm.enterNode(node, prev)
	c.ctxm.record(assistant(strings.TrimSpace(node.Controller.ScenarioIntro + " " + node.Controller.ConversationPrompt)))
	for i := range c.beats {
		if c.exam.Beats[i].Scope == node.NodeID {
			c.beats[i] = beatState{}
		}
	}
}

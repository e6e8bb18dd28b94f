package tui

import "github.com/examtui/examtui/runtime"

// nodeStatus is where the exam stands with one node of its plan. The Timers pane's node list
// and the graph overlay's both come from nodeStatusOf, so they cannot disagree.
type nodeStatus int

const (
	nodePending nodeStatus = iota // not entered yet
	nodeCurrent                   // the exam is in it
	nodeStopped                   // the exam was aborted or expired in it: not finished
	nodeSkipped                   // left by a skip, not finished
	nodeDone                      // entered and left
)

func (s nodeStatus) String() string {
	return [...]string{"pending", "current", "stopped", "skipped", "done"}[s]
}

// nodeStatusOf is node n's status: current is the node the exam is (or ended) in, state the
// exam's state, skipped whether its last exit was a skip, seen whether it was entered.
func nodeStatusOf(n, current string, state runtime.ExamState, skipped, seen bool) nodeStatus {
	switch {
	case n == current && !state.Terminal():
		return nodeCurrent
	case n == current && state.Terminal() && state != runtime.StateCompleted:
		return nodeStopped
	case skipped:
		return nodeSkipped
	case seen:
		return nodeDone
	}
	return nodePending
}

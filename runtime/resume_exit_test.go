package runtime_test

import (
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// TestResumeCutAfterExit: a process died right after writing a node_exit. The resumed exam
// finishes what the exit began, by its reason: a transition enters the next node, an exam ended
// early stays aborted, an end node reached completes.
func TestResumeCutAfterExit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		control runtime.ControlAction
		cutAt   runtime.ExitReason // the node_exit the log is cut after
		want    runtime.ExamState
		node    string // the node the resumed exam ends in
		why     string // exam_completed's reason
	}{
		{"ended early", runtime.ControlEnd, runtime.ExitEnded, runtime.StateAborted, "plan", "ended before the interruption"},
		{"transition", runtime.ControlAdvance, runtime.TransitionExit(spec.ReasonAdminAdvance), runtime.StateCompleted, "after-admin", "end node reached"},
		{"end node", runtime.ControlAdvance, runtime.ExitEndNode, runtime.StateCompleted, "after-admin", "end node reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := intoPlan(t, nil)
			if err := h.c.Control(h.ctx, tc.control, "proctor"); err != nil {
				t.Fatal(err)
			}
			events := h.rec.Events()
			cut := -1
			for i, ev := range events {
				if p, err := ev.Decode(); err == nil {
					if x, ok := p.(*runtime.NodeExitPayload); ok && x.Reason == tc.cutAt {
						cut = i
					}
				}
			}
			if cut < 0 || cut == len(events)-1 {
				t.Fatalf("no node_exit %q to cut after (or nothing after it) in %d events", tc.cutAt, len(events))
			}

			c, rec := resumeFrom(t, h.c.Exam(), &scriptedExaminer{}, runtime.NewVirtualClock(h.clock.Now().Add(time.Minute)), events[:cut+1])
			if err := c.Start(h.ctx); err != nil {
				t.Fatal(err)
			}
			if s := c.Snapshot(); s.State != tc.want || s.NodeID != tc.node {
				t.Fatalf("resumed exam %s in %q, want %s in %q", s.State, s.NodeID, tc.want, tc.node)
			}
			completed := runtimetest.Payloads[*runtime.ExamCompletedPayload](t, rec.Events())
			if len(completed) != 1 || completed[0].State != tc.want || completed[0].Reason != tc.why {
				t.Fatalf("exam_completed after the resume: %+v", completed)
			}
		})
	}
}

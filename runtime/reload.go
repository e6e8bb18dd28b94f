package runtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/examtui/examtui/spec"
)

// ErrSpecReload is returned when an edited spec cannot replace the running one.
var ErrSpecReload = errors.New("runtime: spec reload refused")

// replayReload restores an applied reload while resuming: the exam the session switched to is
// in the event, so the resumed controller runs the version the session last ran.
func (c *Controller) replayReload(p *SpecReloadPayload) error {
	if p.Status != ReloadApplied || len(p.Exam) == 0 {
		return nil
	}
	var exam spec.Exam
	if err := json.Unmarshal(p.Exam, &exam); err != nil {
		return fmt.Errorf("%w: stored exam: %w", ErrSpecReload, err)
	}
	if err := validateExam(&exam); err != nil {
		return err
	}
	c.swapExam(&exam)
	return nil
}

// RejectSpec records an edit of the spec that did not compile: the exam goes on with the
// version it runs. diags are the positioned diagnostics to show.
func (c *Controller) RejectSpec(path string, diags []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	c.emit(&SpecReloadPayload{Status: ReloadRejected, Spec: path, Errors: diags, NodeID: c.currentNodeID()})
	return c.sinkErr
}

// StageSpec makes exam the version the exam switches to at its next node entry; the current
// node finishes as it was compiled. A later StageSpec replaces one not yet applied. The new
// version must keep the exam's id: another exam is not an edit.
func (c *Controller) StageSpec(path string, exam *spec.Exam) error {
	if exam == nil {
		return ErrNilExam
	}
	if err := validateExam(exam); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	if exam.ID != c.exam.ID {
		return fmt.Errorf("%w: the edited spec is exam %q, the running exam is %q", ErrSpecReload, exam.ID, c.exam.ID)
	}
	c.staged, c.stagedPath = exam, path
	c.emit(&SpecReloadPayload{Status: ReloadStaged, Spec: path, SourceSHA256: exam.SourceSHA256, NodeID: c.currentNodeID(),
		Detail: "applies from the next node entry"})
	return c.sinkErr
}

func (c *Controller) currentNodeID() string {
	if c.node == nil {
		return ""
	}
	return c.node.NodeID
}

// applyStaged switches to the staged exam as node id is entered. It runs under mu, from
// enterNode, before anything of the node is read.
func (c *Controller) applyStaged(id string) {
	next, path := c.staged, c.stagedPath
	if next == nil {
		return
	}
	c.staged, c.stagedPath = nil, ""
	if next.Node(id) == nil {
		c.emit(&SpecReloadPayload{Status: ReloadDropped, Spec: path, SourceSHA256: next.SourceSHA256, NodeID: id,
			Detail: fmt.Sprintf("the edited spec has no node %q, which the exam moved to", id)})
		return
	}
	raw, err := json.Marshal(next)
	if err != nil {
		c.emit(&SpecReloadPayload{Status: ReloadDropped, Spec: path, NodeID: id, Detail: "encode: " + err.Error()})
		return
	}
	c.swapExam(next)
	c.emit(&SpecReloadPayload{Status: ReloadApplied, Spec: path, SourceSHA256: next.SourceSHA256, NodeID: id, Exam: raw})
}

// swapExam makes exam the one the controller runs: filters are rebuilt; beats keep their
// fired state when the same beat (scope, time, message) is still there.
func (c *Controller) swapExam(exam *spec.Exam) {
	type beatKey struct {
		scope, msg string
		at         int
	}
	old := map[beatKey]beatState{}
	for i, b := range c.exam.Beats {
		if i < len(c.beats) {
			old[beatKey{b.Scope, b.Message, b.AtSec}] = c.beats[i]
		}
	}
	c.exam = exam
	c.filters = buildFiltersIn(exam, c.lang, c.vocab)
	c.beats = make([]beatState, len(exam.Beats))
	for i, b := range exam.Beats {
		c.beats[i] = old[beatKey{b.Scope, b.Message, b.AtSec}]
	}
}

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
	if err := c.sameLanguage(exam); err != nil {
		return err
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

// sameLanguage refuses an edit that changes the exam's language pack mid-session: the
// candidate was greeted, heard and recognised in the pack's language (its voice, recogniser
// language, end-of-turn words and page), and a session record in two languages is no exam. A
// tag that keeps the pack ("fr" to "fr-FR") is an edit like another; a new language needs a
// new session.
func (c *Controller) sameLanguage(exam *spec.Exam) error {
	p, err := languagePack(exam, c.packs)
	if err != nil {
		return err
	}
	if p == c.lang {
		return nil
	}
	return fmt.Errorf("%w: %w: the edited spec is in %q, the session runs in %q (its voice, recogniser and "+
		"the candidate's page were set at the start); the edit was not applied: finish this session and start a new one to run the exam in %q",
		ErrSpecReload, ErrLanguageChange, exam.Language, c.lang.Language, exam.Language)
}

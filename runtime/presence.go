package runtime

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/spec/lang"
)

// Presence is a change of who is in the exam's room as the candidate. The room wiring reports
// only participants whose candidate role the room server vouched for: a participant that merely
// claims to be the candidate is never reported.
type Presence struct {
	Identity string
	// Present is true when the candidate arrived, false when it left.
	Present bool
	// Reason says why it left ("left the room", "connection lost"...); empty on arrival.
	Reason string
}

// presenceState is what the controller knows of the candidate's presence. Guarded by mu.
type presenceState struct {
	present   map[string]bool // candidate identities in the room now
	seen      bool            // a candidate has been in the room in this session
	awaySince time.Time       // when the last candidate left; zero while one is present
	pending   []Presence      // changes before the exam started, applied by Start
	pausedBy  Actor           // who paused the exam, while it is paused
}

// CandidatePresence records a candidate arriving in or leaving the room as a candidate_presence
// event: joined the first time in the session, left, then rejoined. When the last candidate
// leaves a running exam, the system pauses it (timers stop: "paused: candidate left"); when a
// candidate comes back to an exam paused that way, it resumes and the question is asked again.
// A pause by an examiner or by the candidate is left alone. Changes reported before the exam
// starts are recorded when it starts; changes after it ended are ignored.
func (c *Controller) CandidatePresence(ctx context.Context, p Presence) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.Identity = strings.TrimSpace(p.Identity)
	if p.Identity == "" {
		return fmt.Errorf("%w: no identity", ErrInvalidPresence)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	switch {
	case c.state == StateCreated || c.resumed:
		c.presence.pending = append(c.presence.pending, p)
		return nil
	case c.state.Terminal():
		c.log.Debug("candidate presence after the exam ended", "identity", p.Identity, "present", p.Present)
		return nil
	}
	c.applyPresence(p)
	return c.sinkErr
}

// resumeOnAnswer resumes an exam the system paused because the candidate left, when an answer
// arrives: the candidate is back, whether or not the room has reported it yet (its participant
// update can come after its first message). The answer is then taken as any other. Caller holds mu.
func (c *Controller) resumeOnAnswer() {
	if c.state == StatePaused && c.presence.pausedBy.Kind == ActorSystem && c.presence.pausedBy.Reason == ReasonCandidateLeft {
		c.resumeExam("candidate answered", Actor{Kind: ActorCandidate})
	}
}

// flushPresence records the changes that arrived before Start. Caller holds mu.
func (c *Controller) flushPresence() {
	pending := c.presence.pending
	c.presence.pending = nil
	for _, p := range pending {
		if c.state.Terminal() {
			return
		}
		c.applyPresence(p)
	}
}

// applyPresence emits the change and pauses or resumes the exam. Repeated reports of the same
// state (the room re-reads its participants after a reconnection) change nothing. Caller holds mu.
func (c *Controller) applyPresence(p Presence) {
	ps := &c.presence
	if ps.present == nil {
		ps.present = map[string]bool{}
	}
	nodeID := ""
	if c.node != nil {
		nodeID = c.node.NodeID
	}
	now := c.clock.Now()
	if p.Present {
		if ps.present[p.Identity] {
			return
		}
		status := PresenceJoined
		if ps.seen {
			status = PresenceRejoined
		}
		var away int64
		if len(ps.present) == 0 && !ps.awaySince.IsZero() {
			away = max(0, now.Sub(ps.awaySince).Milliseconds())
		}
		ps.present[p.Identity] = true
		ps.seen, ps.awaySince = true, time.Time{}
		c.log.Info("candidate present", "identity", p.Identity, "status", status.String())
		c.emit(&CandidatePresencePayload{Status: status, Identity: p.Identity, NodeID: nodeID, AwayMs: away, Present: len(ps.present)})
		if c.state == StatePaused && ps.pausedBy.Kind == ActorSystem && ps.pausedBy.Reason == ReasonCandidateLeft {
			c.resumeExam(ReasonCandidateRejoined, Actor{Kind: ActorSystem, Reason: ReasonCandidateRejoined})
			if c.lastQuestion != "" {
				c.speak(c.lineThen(lang.LineWelcomeBack, c.lastQuestion), "resume", false)
			}
		}
		return
	}
	if !ps.present[p.Identity] {
		return
	}
	delete(ps.present, p.Identity)
	c.log.Info("candidate left", "identity", p.Identity, "reason", p.Reason)
	c.emit(&CandidatePresencePayload{Status: PresenceLeft, Identity: p.Identity, Reason: p.Reason, NodeID: nodeID, Present: len(ps.present)})
	if len(ps.present) > 0 {
		return
	}
	ps.awaySince = now
	if c.state == StateInProgress {
		c.userSpeaking = false // no VAD end will come from a track that is gone
		c.pauseExam(ReasonCandidateLeft, Actor{Kind: ActorSystem, Reason: ReasonCandidateLeft})
	}
}

// replayPresence rebuilds what a stored session says of the candidate's presence (WithResume),
// including who the log says is in the room: a candidate still there when the room reports
// them again is the same stay, not a rejoin, and the room is told whom to expect
// (PresentCandidates) so that one who left while no bot was watching is noticed.
func (c *Controller) replayPresence(ev Event, p Payload) {
	v, ok := p.(*CandidatePresencePayload)
	if !ok {
		return
	}
	ps := &c.presence
	if ps.present == nil {
		ps.present = map[string]bool{}
	}
	ps.seen = true
	if v.Status == PresenceLeft {
		delete(ps.present, v.Identity)
		if v.Present == 0 {
			ps.awaySince = ev.Timestamp
		}
		return
	}
	ps.present[v.Identity] = true
	ps.awaySince = time.Time{}
}

// PresentCandidates returns the identities of the candidates the controller takes to be in
// the room, sorted. After a resume these are the ones the stored session last saw there; a room
// that cannot find one of them once it has settled reports it gone.
func (c *Controller) PresentCandidates() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.presence.present))
}

// replayPause restores who paused the exam from a stored pause (WithResume). Sessions recorded
// before exam_state carried By keep the reason-based rule of pausedByExam.
func (c *Controller) replayPause(p *ExamStatePayload) {
	c.presence.pausedBy = Actor{}
	if p.State != StatePaused || p.By == nil {
		return
	}
	c.presence.pausedBy = *p.By
	c.pausedByExam = p.By.Kind == ActorExaminer
}

package app

import (
	"context"
	"fmt"

	"github.com/examtui/examtui/sessions"
)

// RosterCandidate is the roster entry of candidate id in st, or the one error every command
// taking --candidate-id gives for an id the roster does not hold (run, token --link, dispatch).
func RosterCandidate(ctx context.Context, st *sessions.Store, id string) (sessions.Candidate, error) {
	c, ok, err := st.LookupCandidate(ctx, id)
	if err != nil {
		return c, err
	}
	if !ok {
		return c, fmt.Errorf("--candidate-id %q: %w (examtui candidates import first)", id, sessions.ErrNoCandidate)
	}
	return c, nil
}

// CandidateArrived records on the session what the join link of the candidate who arrived in
// room as identity says: the recording notice's acknowledgement and the roster candidate. The
// room bot and the worker call it when the candidate arrives.
func (x *Exam) CandidateArrived(ctx context.Context, room, identity string) {
	x.RecordNoticeAck(ctx, room, identity)
	x.AttachJoinCandidate(ctx, room, identity)
}

// AttachJoinCandidate attaches to the session the roster candidate whose join link admitted
// identity to room (token --link --candidate-id, dispatch --candidate-id, the control room's
// new link for the same candidate): the session then carries the id the gradebook exports
// match. A session already attached (dispatch metadata, run --candidate-id) keeps its id. A
// failure is logged: the exam goes on without the id, and `examtui candidates` can attach it.
func (x *Exam) AttachJoinCandidate(ctx context.Context, room, identity string) {
	if x.Store == nil {
		return
	}
	id, err := x.Store.RoomCandidateID(ctx, room, identity)
	if err != nil || id == "" {
		if err != nil {
			x.log.Warn("the join link's candidate id was not read", "err", err)
		}
		return
	}
	if cur, _, err := x.Store.CandidateOf(ctx, x.SessionID); err == nil && cur.CandidateID != "" {
		return
	}
	if err := x.Store.AttachCandidate(ctx, x.SessionID, id); err != nil {
		x.log.Warn("the join link's candidate id was not attached to the session", "err", err)
		return
	}
	x.log.Info("candidate attached from the join link", "session", x.SessionID)
}

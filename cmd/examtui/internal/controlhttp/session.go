package controlhttp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
)

// session is one Pipecat conversation: an exam wired by cmd/examtui/internal/app with the relay as its
// examiner. mu makes its requests one at a time, so each answer holds exactly the events of
// its own request plus those the ticker or an operator's command made since the last answer.
type session struct {
	exam  *app.Exam
	relay *relay

	mu      sync.Mutex
	lastSeq int64 // the last event an answer has taken
}

// turn submits one candidate turn and returns what followed.
func (s *session) turn(ctx context.Context, req *TurnRequest) (*Update, error) {
	args, err := req.arguments()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	if req.DurationMs < 0 {
		return nil, fmt.Errorf("%w: durationMs %d is negative", errBadRequest, req.DurationMs)
	}
	botErrs, err := req.botErrors()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	t := runtime.Turn{Text: req.Text, Duration: time.Duration(req.DurationMs) * time.Millisecond, Source: runtime.SourceTyped}
	if req.Confidence != nil {
		t.Confidence, t.Source = *req.Confidence, runtime.SourceRoom
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range botErrs {
		if err := s.exam.Controller.ReportSystemError(e.code, e.message); err != nil {
			return nil, err
		}
	}
	s.relay.offer(args)
	err = s.exam.Controller.SubmitTurn(ctx, t)
	s.relay.offer(nil) // a turn the controller settled without the examiner leaves nothing behind
	if err != nil {
		return nil, err
	}
	return s.updateLocked(ctx)
}

// update returns what happened since the last answer without submitting anything.
func (s *session) update(ctx context.Context) (*Update, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateLocked(ctx)
}

// updateLocked waits until every event published so far is stored and has reached the
// exam's event stream, and reads them into an answer. Caller holds mu.
func (s *session) updateLocked(ctx context.Context) (*Update, error) {
	target := s.exam.Journal.NextSeq() - 1
	if err := s.exam.Journal.Flush(ctx); err != nil {
		return nil, err
	}
	snap := s.exam.Controller.Snapshot()
	u := &Update{SessionID: s.exam.SessionID, Node: snap.NodeID, Variant: snap.Variant, State: snap.State.String(),
		Say: []Line{}, Transitions: []Transition{}, Ended: snap.State.Terminal()}
	for s.lastSeq < target {
		var ev runtime.Event
		select {
		case e, ok := <-s.exam.Events():
			if !ok {
				return nil, ErrClosed
			}
			ev = e
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.lastSeq = ev.Seq
		p, err := ev.Decode()
		if err != nil {
			return nil, fmt.Errorf("seq %d: %w", ev.Seq, err)
		}
		switch p := p.(type) {
		case *runtime.SpokenPayload:
			u.Say = append(u.Say, Line{Text: p.Text, Source: p.Source.String(), Node: p.NodeID})
		case *runtime.NodeExitPayload:
			u.Transitions = append(u.Transitions, Transition{From: p.NodeID, Reason: p.Reason.String(), To: p.Next})
		}
	}
	return u, nil
}

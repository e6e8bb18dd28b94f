package controlhttp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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

	mu       sync.Mutex
	lastSeq  int64        // the last event an answer has taken
	lastTurn string       // the last turn's TurnID ("" : none given)
	lastAns  *Update      // the last turn's answer, for a retry of it
	used     atomic.Int64 // unix nanoseconds of the last request, for the idle expiry
}

// MaxTurnIDLen bounds a turn id.
const MaxTurnIDLen = 128

// touch records a request now.
func (s *session) touch(now time.Time) { s.used.Store(now.UnixNano()) }

// idleSince is when the session last had a request.
func (s *session) idleSince() time.Time { return time.Unix(0, s.used.Load()) }

// turn submits one candidate turn and returns what followed.
func (s *session) turn(ctx context.Context, req *TurnRequest) (*Update, error) {
	args, err := req.arguments()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	// The bounds are the runtime's, which the room wire takes too (runtime.MaxTurnDuration,
	// runtime.MaxTurnTextRunes); checked here before the milliseconds can overflow a Duration.
	if req.DurationMs < 0 || req.DurationMs > runtime.MaxTurnDuration.Milliseconds() {
		return nil, fmt.Errorf("%w: durationMs %d outside 0..%d", errBadRequest, req.DurationMs, runtime.MaxTurnDuration.Milliseconds())
	}
	if len(req.TurnID) > MaxTurnIDLen {
		return nil, fmt.Errorf("%w: turnId has %d bytes (limit %d)", errBadRequest, len(req.TurnID), MaxTurnIDLen)
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
	if req.TurnID != "" && req.TurnID == s.lastTurn && s.lastAns != nil {
		return s.lastAns, nil // a retry: the turn is decided and stored once
	}
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
	u, err := s.updateLocked(ctx)
	if err == nil {
		s.lastTurn, s.lastAns = req.TurnID, u
	}
	return u, err
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

// reserve takes a place for a session being opened, or refuses past the cap; places being
// opened count, so concurrent creates cannot pass it.
func (s *Server) reserve() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions)+s.opening >= s.maxOpen {
		return fmt.Errorf("%w: %d open (limit %d); end finished conversations with DELETE", ErrTooManySessions, len(s.sessions), s.maxOpen)
	}
	s.opening++
	return nil
}

func (s *Server) unreserve() {
	s.mu.Lock()
	s.opening--
	s.mu.Unlock()
}

// expireEvery closes, every d until ctx ends, the sessions idle longer than the expiry.
func (s *Server) expireEvery(ctx context.Context, d time.Duration) {
	app.Every(ctx, d, func() bool { s.expireIdle(); return true })
}

// expireIdle closes the sessions no request has touched within the idle expiry; one that had
// not ended stays resumable in the store.
func (s *Server) expireIdle() {
	cutoff := s.now().Add(-s.idle)
	s.mu.Lock()
	var idle []*session
	for id, ss := range s.sessions {
		if ss.idleSince().Before(cutoff) {
			idle = append(idle, ss)
			delete(s.sessions, id)
		}
	}
	s.mu.Unlock()
	for _, ss := range idle {
		ss.mu.Lock()
		err := ss.exam.Close()
		ss.mu.Unlock()
		s.log.Info("pipecat session closed: idle", "session", ss.exam.SessionID, "idle", s.idle, "err", err)
	}
}

package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/examtui/examtui/runtime"
)

// closingSpeech bounds how long a finished exam's bot stays to say its last lines.
const closingSpeech = 30 * time.Second

// StartWhenCandidate starts the exam once a candidate is in the room. A resumed session that
// had started goes on at once: its candidate is expected back.
func (x *Exam) StartWhenCandidate(ctx context.Context, rb *RoomBot) error {
	room := rb.name
	if x.Controller.Snapshot().State == runtime.StateCreated {
		x.log.Info("waiting for the candidate", "room", room, "session", x.SessionID)
		id, err := rb.WaitCandidate(ctx)
		if err != nil {
			return err
		}
		x.log.Info("candidate arrived", "identity", id)
		x.CandidateArrived(ctx, room, id)
		// The session was created when the bot joined: its exam starts now, with this
		// candidate, so lists do not count the wait or show no one.
		if x.Store != nil {
			if err := x.Store.MarkStarted(ctx, x.SessionID, time.Now(), id); err != nil {
				x.log.Warn("record the room exam's start", "err", err)
			}
		}
	}
	if err := x.Start(ctx); err != nil {
		return fmt.Errorf("start exam: %w", err)
	}
	x.log.Info("room exam started", "session", x.SessionID, "exam", x.Spec.ID, "examiner", x.Examiner, "room", room)
	return nil
}

// CloseRoom lets the examiner of an exam that has ended finish speaking, closes the exam (so
// its last events reach the room) and then leaves the room.
func (x *Exam) CloseRoom(rb *RoomBot) error {
	if x.Controller.Snapshot().State.Terminal() {
		ctx, cancel := context.WithTimeout(context.Background(), closingSpeech)
		if err := rb.Bot.WaitIdle(ctx); err != nil {
			x.log.Warn("room: leaving before the examiner finished speaking", "err", err)
		}
		cancel()
	}
	err := x.Close()
	return errors.Join(err, rb.Close())
}

// RunRoomHeadless runs the room's exam with no console: it starts the exam when the candidate
// arrives and prints every committed event until the exam ends or ctx is cancelled, then
// finishes as RunHeadless does. It closes x and rb.
func (x *Exam) RunRoomHeadless(ctx context.Context, rb *RoomBot, cfg HeadlessConfig) error {
	h := x.newHeadless(cfg, func() error { return x.CloseRoom(rb) })
	why := stopEnded
	runErr := x.StartWhenCandidate(ctx, rb)
	if runErr != nil && ctx.Err() != nil {
		runErr, why = nil, stopInterrupted
	}
	if runErr == nil && why != stopInterrupted {
		select {
		case <-ctx.Done():
			why = stopInterrupted
		case <-h.printer.Ended():
		case <-h.printer.Failed():
			why = stopInterrupted
		}
	}
	return h.finish(why, runErr)
}

package worker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	lkproto "github.com/livekit/protocol/livekit"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/livekit/agent"
)

// Failover: the open-source LiveKit server does not dispatch a job again when its worker is
// lost (it forgets the worker's jobs; the dispatch's restart policy is a LiveKit Cloud
// feature), and the dead bot stays in the room until its connection times out (about 15 s).
// So the surviving workers notice instead, from the two things they share:
//
//   - the room list on the server says which exam rooms exist (a room's name and sid give its
//     session id, SessionKey);
//   - the session store says whether that session is unfinished and whether a process still
//     owns it: the owner's lock is released by the kernel the moment the process dies, even
//     by kill -9.
//
// A room whose session is unfinished and unowned is an orphan. Every worker with room for a
// job looks for orphans every second or so (jittered, so the survivors do not all look at
// once) and adopts one by resuming its session; opening the session takes the owner lock, so
// of two workers that try, one runs it and the other gets "runs on another worker" and lets
// go. The new bot joins with the same identity as the dead one, which makes the server drop
// the dead participant at once; it replays the stored events to the people in the room (each
// client keeps every seq once: nothing shown is lost) and tells the candidate it reconnected.
//
// Sessions a job gave up on with a system_error (runtime.CodeWorkerJobFailed) are not adopted: they are
// resumable by hand, but a failure that repeats should not hop from worker to worker.

// RoomLister lists the server's rooms (lksdk.RoomServiceClient).
type RoomLister interface {
	ListRooms(ctx context.Context, req *lkproto.ListRoomsRequest) (*lkproto.ListRoomsResponse, error)
}

// Takeover says how a worker adopts orphaned exams.
type Takeover struct {
	Rooms     RoomLister
	Worker    *agent.Worker // the adopted exam counts as one of its jobs
	URL       string        // the LiveKit server
	APIKey    string        // to mint the adopting bot's token
	APISecret string
	Every     time.Duration // how often to look (default 1 s, jittered ±25%)
}

// WatchOrphans adopts orphaned exams until ctx ends.
func (r *Runner) WatchOrphans(ctx context.Context, t Takeover) error {
	if t.Rooms == nil || t.Worker == nil || t.URL == "" || t.APIKey == "" || t.APISecret == "" {
		return fmt.Errorf("%w: takeover needs a room lister, the agent worker, the URL and the API key and secret", ErrInvalidConfig)
	}
	if t.Every <= 0 {
		t.Every = time.Second
	}
	skipped := map[string]bool{} // orphans left alone, logged once
	for {
		d := time.Duration(float64(t.Every) * (0.75 + rand.Float64()/2))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
		if t.Worker.Full() {
			continue
		}
		if err := r.adoptOrphans(ctx, t, skipped); err != nil && ctx.Err() == nil {
			r.log.Debug("look for orphaned exams", "err", err)
		}
	}
}

func (r *Runner) adoptOrphans(ctx context.Context, t Takeover, skipped map[string]bool) error {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	res, err := t.Rooms.ListRooms(lctx, &lkproto.ListRoomsRequest{})
	cancel()
	if err != nil {
		return err
	}
	for _, room := range res.GetRooms() {
		id := SessionKey(room.GetName(), room.GetSid())
		if r.running(id) || skipped[id] {
			continue
		}
		orphan, why, err := r.orphaned(ctx, id)
		if err != nil {
			return err
		}
		if !orphan {
			if why != "" {
				skipped[id] = true
				r.log.Warn("orphaned exam left alone", "room", room.GetName(), "session", id, "why", why)
			}
			continue
		}
		if !r.adopt(t, room.GetName(), room.GetSid(), id) {
			return nil // full now
		}
	}
	return nil
}

// orphaned says whether the session exists, is unfinished and has no live owner; why is set
// when it is an orphan this worker will not adopt.
func (r *Runner) orphaned(ctx context.Context, id string) (orphan bool, why string, err error) {
	sess, err := r.store.Get(ctx, id)
	if err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			return false, "", nil
		}
		return false, "", err
	}
	if !sess.EndedAt.IsZero() {
		return false, "", nil
	}
	alive, err := r.store.OwnerAlive(ctx, id)
	if err != nil || alive {
		return false, "", err
	}
	if sess.EventCount > 0 {
		for ev, err := range r.store.Events(ctx, id, sess.EventCount) {
			if err != nil {
				return false, "", err
			}
			if ev.Event == runtime.EventSystemError {
				if p, perr := ev.Decode(); perr == nil {
					if se, ok := p.(*runtime.SystemErrorPayload); ok && se.Code == runtime.CodeWorkerJobFailed {
						return false, "its last job failed: " + se.Message, nil
					}
				}
			}
		}
	}
	return true, "", nil
}

func (r *Runner) adopt(t Takeover, room, roomSID, id string) bool {
	tok, err := livekit.NewToken(t.APIKey, t.APISecret, room, r.cfg.BotIdentity, livekit.RoleBot)
	if err != nil {
		r.log.Error("token for an orphaned exam", "room", room, "err", err)
		return true
	}
	jobID := "takeover-" + id
	log := r.log.With("job", jobID, "room", room)
	req := agent.JobRequest{ID: jobID, Room: room, RoomSID: roomSID}
	return t.Worker.Adopt(req, func(ctx context.Context) error {
		log.Info("taking over an orphaned exam", "session", id)
		err := r.runExam(ctx, exam{room: room, jobID: jobID, sessionID: id, takeover: true,
			cfg: livekit.Config{URL: t.URL, Token: tok, APIKey: r.cfg.APIKey, APISecret: r.cfg.APISecret}}, log)
		if errors.Is(err, ErrExamElsewhere) || errors.Is(err, ErrExamEnded) {
			log.Debug("another worker took the exam", "session", id)
			return nil
		}
		return err
	})
}

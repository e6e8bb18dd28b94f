package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/transport/livekit"
)

// A dispatch no worker takes (every one full, draining, or refusing the spec; or none running)
// stays on the server and never runs: the candidate who joins that room gets nothing. So
// dispatch watches its dispatch until the server records a job for it (a worker accepted it;
// that takes a few seconds), and when none comes by its deadline it withdraws the dispatch and
// fails, saying so.
const (
	defaultDispatchWait = 30 * time.Second
	dispatchPoll        = 250 * time.Millisecond
	// dispatchCall bounds one request to the server.
	dispatchCall = 10 * time.Second
)

// errNotTaken is a dispatch no worker took before the deadline.
var errNotTaken = errors.New("no worker took the exam")

// errRejected is a dispatch a worker took and then refused (an unknown spec, bad metadata):
// the message carries the worker's reason.
var errRejected = errors.New("the worker rejected the exam")

// dispatchSettle bounds the wait, once a worker holds the job, for the outcome that tells a
// started exam from a refused one: the exam bot joining the room, or the job failing (a worker
// refuses before it opens the exam, within milliseconds). Past it the dispatch counts as taken.
const dispatchSettle = 5 * time.Second

// dispatchRetry is how long one dispatch is given before it is withdrawn and made again. The
// server offers a dispatch's job to the registered workers for a while and then, some of the
// time, drops it: a dispatch made while every worker was full then never ran, even after a
// place freed up within --wait. Made again, it is offered again, until the deadline. 10 s
// leaves a busy server the few seconds a job takes to be assigned (5 s was too short: jobs
// being assigned were withdrawn).
const dispatchRetry = 10 * time.Second

// dispatchUntilTaken creates the dispatch and returns its id once a worker holds a job for it,
// making it again every dispatchRetry while none has, until wait has passed. With wait 0 it
// returns as soon as the dispatch exists.
func dispatchUntilTaken(ctx context.Context, client *lksdk.AgentDispatchClient, rooms *lksdk.RoomServiceClient, req *lkproto.CreateAgentDispatchRequest, wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	tries := 0
	for {
		tries++
		cctx, cancel := context.WithTimeout(ctx, dispatchCall)
		ad, err := client.CreateDispatch(cctx, req)
		cancel()
		if err != nil {
			return "", fmt.Errorf("create dispatch: %w", err)
		}
		id := ad.GetId()
		if wait == 0 {
			return id, nil
		}
		retryAt := time.Now().Add(dispatchRetry)
		if retryAt.After(deadline) {
			retryAt = deadline
		}
		for time.Now().Before(retryAt) {
			taken, err := dispatchTaken(ctx, client, req.Room, id)
			if err != nil {
				withdraw(client, req.Room, id)
				return "", err
			}
			if taken {
				return id, dispatchSettled(ctx, client, rooms, req.Room, id)
			}
			t := time.NewTimer(dispatchPoll)
			select {
			case <-ctx.Done():
				t.Stop()
				withdraw(client, req.Room, id)
				return "", ctx.Err()
			case <-t.C:
			}
		}
		withdraw(client, req.Room, id)
		// A job assigned while the dispatch was being withdrawn is not lost: the worker holds it.
		if taken, err := dispatchTaken(ctx, client, req.Room, id); err == nil && taken {
			return id, dispatchSettled(ctx, client, rooms, req.Room, id)
		}
		if !time.Now().Before(deadline) {
			return "", fmt.Errorf("%w in room %q within %v (agent %q, %d dispatches): every worker is full, draining or does not have "+
				"the spec, or none is running; the dispatch was withdrawn", errNotTaken, req.Room, wait, req.AgentName, tries)
		}
	}
}

// dispatchTaken reports whether the server records a job for dispatch id in room.
func dispatchTaken(ctx context.Context, client *lksdk.AgentDispatchClient, room, id string) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, dispatchCall)
	defer cancel()
	res, err := client.ListDispatch(cctx, &lkproto.ListAgentDispatchRequest{Room: room, DispatchId: id})
	if err != nil {
		return false, fmt.Errorf("read dispatch %s: %w", id, err)
	}
	for _, d := range res.GetAgentDispatches() {
		if d.GetId() == id && len(d.GetState().GetJobs()) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// withdraw deletes a dispatch nobody took, so that it cannot start an exam nobody waits for.
func withdraw(client *lksdk.AgentDispatchClient, room, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), dispatchCall)
	defer cancel()
	_, _ = client.DeleteDispatch(ctx, &lkproto.DeleteAgentDispatchRequest{Room: room, DispatchId: id})
}

// dispatchSettled waits, once a worker holds dispatch id's job, until the exam bot is in the
// room (nil) or the job failed (errRejected with the worker's reason; the dispatch is withdrawn,
// so it cannot start later with nobody watching), for at most dispatchSettle.
func dispatchSettled(ctx context.Context, client *lksdk.AgentDispatchClient, rooms *lksdk.RoomServiceClient, room, id string) error {
	deadline := time.Now().Add(dispatchSettle)
	for time.Now().Before(deadline) {
		reason, failed, err := jobFailure(ctx, client, rooms, room, id)
		if err != nil {
			return err
		}
		if failed {
			withdraw(client, room, id)
			return fmt.Errorf("%w in room %q: %s; the dispatch was withdrawn", errRejected, room, reason)
		}
		if rooms != nil && botIn(ctx, rooms, room) {
			return nil
		}
		t := time.NewTimer(dispatchPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// jobFailure reports whether the worker refused dispatch id's job, and its reason: the job
// failed, or the room's metadata carries the worker's note about that job
// (livekit.EncodeRejection; LiveKit's dispatch listing may not show a job's end).
func jobFailure(ctx context.Context, client *lksdk.AgentDispatchClient, rooms *lksdk.RoomServiceClient, room, id string) (string, bool, error) {
	cctx, cancel := context.WithTimeout(ctx, dispatchCall)
	defer cancel()
	res, err := client.ListDispatch(cctx, &lkproto.ListAgentDispatchRequest{Room: room, DispatchId: id})
	if err != nil {
		return "", false, fmt.Errorf("read dispatch %s: %w", id, err)
	}
	jobs := map[string]bool{}
	for _, d := range res.GetAgentDispatches() {
		for _, j := range d.GetState().GetJobs() {
			jobs[j.GetId()] = true
			if j.GetState().GetStatus() == lkproto.JobStatus_JS_FAILED {
				return reasonOr(j.GetState().GetError()), true, nil
			}
		}
	}
	if rooms == nil {
		return "", false, nil
	}
	rs, err := rooms.ListRooms(cctx, &lkproto.ListRoomsRequest{Names: []string{room}})
	if err != nil {
		return "", false, nil // the job's own state still counts; the room is a second source
	}
	for _, r := range rs.GetRooms() {
		if job, reason, ok := livekit.DecodeRejection(r.GetMetadata()); ok && jobs[job] {
			return reasonOr(reason), true, nil
		}
	}
	return "", false, nil
}

func reasonOr(s string) string {
	if s = textsafe.Line(s); s == "" {
		return "no reason given"
	}
	return s
}

// botIn reports whether an exam bot (a participant whose role attribute says bot) is in room.
func botIn(ctx context.Context, rooms *lksdk.RoomServiceClient, room string) bool {
	cctx, cancel := context.WithTimeout(ctx, dispatchCall)
	defer cancel()
	res, err := rooms.ListParticipants(cctx, &lkproto.ListParticipantsRequest{Room: room})
	if err != nil {
		return false
	}
	for _, p := range res.GetParticipants() {
		if p.GetAttributes()[livekit.RoleAttribute] == livekit.RoleBot.String() {
			return true
		}
	}
	return false
}

package livekit_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// rawCandidate is a candidate that counts every event packet the bot sends it, before any
// client-side removal of repeats: what a page that shows each packet would show.
type rawCandidate struct {
	lk    *lksdk.Room
	mu    sync.Mutex
	count map[int64]int
	kinds map[int64]runtime.EventType
}

func (c *rawCandidate) seqs() map[int64]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[int64]int, len(c.count))
	for k, v := range c.count {
		out[k] = v
	}
	return out
}

func (c *rawCandidate) has(kind runtime.EventType, after int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for seq, k := range c.kinds {
		if k == kind && seq > after {
			return true
		}
	}
	return false
}

func joinRawCandidate(t *testing.T, e *exam, identity string) *rawCandidate {
	t.Helper()
	c := &rawCandidate{count: map[int64]int{}, kinds: map[int64]runtime.EventType{}}
	cb := &lksdk.RoomCallback{ParticipantCallback: lksdk.ParticipantCallback{
		OnDataPacket: func(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
			u, ok := data.(*lksdk.UserDataPacket)
			if !ok || u.Topic != livekit.TopicEvents {
				return
			}
			var ev runtime.Event
			if json.Unmarshal(u.Payload, &ev) != nil || ev.Seq <= 0 {
				return
			}
			c.mu.Lock()
			c.count[ev.Seq]++
			c.kinds[ev.Seq] = ev.Event
			c.mu.Unlock()
		},
	}}
	room, err := lksdk.ConnectToRoomWithToken(e.srv.URL, e.srv.Token(identity, livekit.RoleCandidate), cb, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatalf("%s join: %v", identity, err)
	}
	t.Cleanup(room.Disconnect)
	c.lk = room
	return c
}

// TestEachEventOnceToAConnection: a candidate who is in the room as the exam opens gets each
// event once, however often the bot replays the history to it (the join replay, the worker's
// redelivery after the start); only a new connection gets the history again.
func TestEachEventOnceToAConnection(t *testing.T) {
	e, ctrl, _ := roomExam(t, "sent-once")
	ctx := context.Background()
	cand := joinRawCandidate(t, e, "candidate-1")
	exr := e.dial(t, "examiner-ana", livekit.RoleExaminer)
	e.waitAudience(t, "candidate-1", "examiner-ana")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 15*time.Second, func() bool { return cand.has(runtime.EventSpoken, 0) }, "the opening to reach the candidate")
	opened := int64(len(cand.seqs()))
	// What the worker does after the start, and what a second arrival callback would do.
	e.bot.Replay("candidate-1")
	e.bot.Replay("candidate-1")
	// A later live event: the replays were queued before it, so they have arrived when it does.
	if err := exr.SendControl(ctx, runtime.ControlPause); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 15*time.Second, func() bool { return cand.has(runtime.EventExamState, opened) }, "the pause to reach the candidate")
	for seq, n := range cand.seqs() {
		if n != 1 {
			t.Errorf("seq %d arrived %d times", seq, n)
		}
	}
}

// TestReadyReplaysEverything: a candidate's client that says "ready" gets its share of every
// event again, even what the bot's ledger counts as sent to that connection. On a busy machine
// the bot sees a joining page before the page's data channel is open; what it sent then is
// lost, and a ledger-filtered replay would never send it again (the reloaded page that stayed
// "paused").
func TestReadyReplaysEverything(t *testing.T) {
	e, ctrl, _ := roomExam(t, "ready")
	ctx := context.Background()
	cand := joinRawCandidate(t, e, "candidate-1")
	e.waitAudience(t, "candidate-1")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 15*time.Second, func() bool { return cand.has(runtime.EventSpoken, 0) }, "the opening to reach the candidate")
	opened := cand.seqs()
	ready, err := livekit.EncodeCandidateReady()
	if err != nil {
		t.Fatal(err)
	}
	if err := cand.lk.LocalParticipant.PublishDataPacket(lksdk.UserData(ready), lksdk.WithDataPublishTopic(livekit.TopicCandidateInput),
		lksdk.WithDataPublishReliable(true)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 15*time.Second, func() bool {
		got := cand.seqs()
		for seq := range opened {
			if got[seq] < 2 {
				return false
			}
		}
		return true
	}, "every event sent before the ready to arrive again")
}

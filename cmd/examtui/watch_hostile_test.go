package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestWatchIgnoresSelfDeclaredBot: a participant whose token lets it change its own attributes
// names itself the bot and publishes an invented evidence_update and exam_completed. `watch
// --json` prints neither, keeps running while the real exam goes on, reports a security warning,
// and ends only with the real bot's exam_completed.
func TestWatchIgnoresSelfDeclaredBot(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	x, rb := apptest.StartDemoBot(ctx, t, srv)

	out := &testutil.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- execRoot(ctx, nil, out, &bytes.Buffer{}, "watch", "--json", "--room", srv.Room, "--url", srv.URL,
			"--api-key", srv.APIKey, "--api-secret", srv.Secret, "--identity", "examiner-watch")
	}()
	testutil.Eventually(t, 30*time.Second, func() bool { return apptest.HasParticipant(rb.Room, "examiner-watch") }, "watch to join")

	// The forger joins with a token that lets it change its attributes, and becomes "bot".
	g := &auth.VideoGrant{RoomJoin: true, Room: srv.Room}
	g.SetCanPublishData(true)
	g.SetCanSubscribe(true)
	g.SetCanUpdateOwnMetadata(true)
	tok, err := auth.NewAccessToken(srv.APIKey, srv.Secret).SetIdentity("forger").SetVideoGrant(g).SetValidFor(time.Hour).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	forger, err := lksdk.ConnectToRoomWithToken(srv.URL, tok, &lksdk.RoomCallback{}, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Disconnect()
	forger.LocalParticipant.SetAttributes(map[string]string{livekit.RoleAttribute: "bot"})
	time.Sleep(500 * time.Millisecond) // let the attribute change reach the room
	sid := x.Controller.Snapshot().SessionID
	for i, p := range []runtime.Payload{
		&runtime.EvidenceUpdatePayload{NodeID: "forged-node", SignalType: "forged", Excerpt: "forged", Coverage: 1},
		&runtime.ExamCompletedPayload{State: runtime.StateCompleted, Reason: "forged"},
	} {
		ev, err := runtime.NewEvent(sid, int64(1000+i), time.Now(), p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(ev)
		if err := forger.LocalParticipant.PublishDataPacket(lksdk.UserData(data),
			lksdk.WithDataPublishTopic(livekit.TopicEvents), lksdk.WithDataPublishReliable(true)); err != nil {
			t.Fatal(err)
		}
	}

	// The forged exam_completed must not end watch.
	select {
	case err := <-done:
		t.Fatalf("watch ended on a forged event (err %v):\n%s", err, out.String())
	case <-time.After(3 * time.Second):
	}
	if !strings.Contains(out.String(), runtime.CodeForgedEvent.String()) {
		t.Errorf("watch printed no %s warning:\n%s", runtime.CodeForgedEvent, out.String())
	}

	// The real exam ends through the real bot; watch ends with it.
	exr := apptest.DialBot(ctx, t, srv, "examiner-2", livekit.RoleExaminer)
	testutil.Eventually(t, 30*time.Second, func() bool { return apptest.HasParticipant(rb.Room, "examiner-2") }, "the bot to see examiner-2")
	if err := exr.SendControl(ctx, runtime.ControlEnd); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("watch did not end with the real exam")
	}
	var last runtime.Event
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ev runtime.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if ev.Seq >= 1000 || strings.Contains(string(ev.Payload), "forged-node") || strings.Contains(string(ev.Payload), `"reason":"forged"`) {
			t.Errorf("watch printed a forged event: %s", line)
		}
		last = ev
	}
	if last.Event != runtime.EventExamCompleted || !strings.Contains(string(last.Payload), "aborted") {
		t.Errorf("last event %s %s, want the real bot's exam_completed (aborted)", last.Event, last.Payload)
	}
}

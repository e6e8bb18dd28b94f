package livekit_test

import (
	"encoding/json"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/transport/livekit"
)

// A bot that joins after the candidate and speaks at once is heard before the server announces
// it (livekit-server announces a participant without media only on its 3 s batch): the
// candidate keeps its events until the announcement vouches for the bot, instead of dropping
// them as forged.
func TestClientHoldsEventsFromABotNotYetAnnounced(t *testing.T) {
	srv := lktest.Start(t)
	cand := dialClient(t, srv, "cand-held", livekit.RoleCandidate)

	// A bot with a vouched bot token that publishes no track: nothing makes the server
	// announce it before its batch tick.
	bot, err := lksdk.ConnectToRoomWithToken(srv.URL, srv.Token("examtui-bot", livekit.RoleBot), &lksdk.RoomCallback{}, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Disconnect()
	sent := runtimetest.SampleEvents(t)[:2]
	for _, ev := range sent {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if err := bot.LocalParticipant.PublishDataPacket(lksdk.UserData(payload), lksdk.WithDataPublishTopic(livekit.TopicEvents),
			lksdk.WithDataPublishReliable(true), lksdk.WithDataPublishDestination([]string{"cand-held"})); err != nil {
			t.Fatal(err)
		}
	}

	var got []runtime.Event
	deadline := time.After(10 * time.Second)
	for len(got) < len(sent) {
		select {
		case ev := <-cand.Events():
			if ev.Event == runtime.EventSystemError {
				t.Fatalf("the bot's events were judged forged: %s", ev.Payload)
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("received %d of the bot's %d events", len(got), len(sent))
		}
	}
	for i := range sent {
		if got[i].Seq != sent[i].Seq {
			t.Errorf("event %d: seq %d, want %d (order kept)", i, got[i].Seq, sent[i].Seq)
		}
	}
}

package web_test

import (
	"sync/atomic"
	"testing"

	"github.com/livekit/protocol/auth"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestPageTypedAnswerToBotOnly: a participant without a role (a token minted with no examtui
// role, subscribed to everything) does not receive the candidate's typed answer, which the bot
// does (it decides the turn). The page sent it to the whole room before.
func TestPageTypedAnswerToBotOnly(t *testing.T) {
	r := newRoom(t)
	at := auth.NewAccessToken(r.lk.APIKey, r.lk.Secret).SetIdentity("stranger").
		SetVideoGrant(&auth.VideoGrant{RoomJoin: true, Room: r.lk.Room, CanSubscribe: boolPtr(true)})
	tok, err := at.ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	var heard atomic.Int32
	stranger, err := lksdk.ConnectToRoomWithToken(r.lk.URL, tok, &lksdk.RoomCallback{ParticipantCallback: lksdk.ParticipantCallback{
		OnDataPacket: func(_ lksdk.DataPacket, p lksdk.DataReceiveParams) {
			if p.Topic == livekit.TopicCandidateInput {
				heard.Add(1)
			}
		},
	}}, lksdk.WithAutoSubscribe(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stranger.Disconnect)

	p := r.join(t, r.site.link(r.site.code(t, "cand-private")))
	p.WaitText("#state", "in progress", waitExam)
	line := r.answers.Said[0]
	p.Record("#answer-note")
	p.Type("#answer", line)
	p.WaitShown("#answer-note", "Sent: "+line, waitExam)
	testutil.Eventually(t, waitExam, func() bool { return r.exam.count(runtime.EventObservation) == 1 }, "the bot to decide the typed turn")
	if n := heard.Load(); n != 0 {
		t.Errorf("a participant without a role received %d typed answers", n)
	}
}

func boolPtr(b bool) *bool { return &b }

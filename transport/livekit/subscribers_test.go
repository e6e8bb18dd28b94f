package livekit_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/examtui/examtui/transport/livekit"
)

// TestRolelessCannotHearTheBot: a participant without a role subscribes to everything it can;
// the server refuses it the bot's voice, while the candidate hears it.
func TestRolelessCannotHearTheBot(t *testing.T) {
	e := startExam(t)
	g := &auth.VideoGrant{RoomJoin: true, Room: e.srv.Room}
	g.SetCanSubscribe(true)
	tok, err := auth.NewAccessToken(e.srv.APIKey, e.srv.Secret).SetIdentity("eavesdropper").SetVideoGrant(g).SetValidFor(time.Hour).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	var heard atomic.Int32
	cb := &lksdk.RoomCallback{ParticipantCallback: lksdk.ParticipantCallback{
		OnTrackSubscribed: func(track *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
			if rp.Identity() == "examtui-bot" && track.Kind() == webrtc.RTPCodecTypeAudio {
				heard.Add(1)
			}
		},
	}}
	eaves, err := lksdk.ConnectToRoomWithToken(e.srv.URL, tok, cb) // subscribes to every track
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eaves.Disconnect)
	cand := e.dial(t, "candidate-1", livekit.RoleCandidate)
	e.waitAudience(t, "candidate-1", "eavesdropper")

	// The bot speaks twice; the candidate hears both, the eavesdropper subscribed to nothing.
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		if err := e.bot.Voice().Write(tone(440, 500*time.Millisecond, 8000)); err != nil {
			t.Fatal(err)
		}
		ok := awaitLoud(ctx, cand.Audio())
		cancel()
		if !ok {
			t.Fatalf("the candidate did not hear the bot (line %d)", i+1)
		}
	}
	if n := heard.Load(); n != 0 {
		t.Fatalf("a participant without a role subscribed to the bot's voice (%d tracks)", n)
	}
}

package livekit_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// TestOpeningWaitsForTheListener: a candidate whose subscription to the bot's voice completes
// well after the exam opened (a loaded machine) still hears the whole opening: the bot's first
// line waits until someone subscribed. The bot's track sends packets only while it speaks
// (dtxtrack.go), so the packets received measure how much of the opening was heard.
func TestOpeningWaitsForTheListener(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server and espeak-ng")
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	e := startExam(t)
	ctrl, fan := liveController(t, "opening-listener")
	e.serve(t, ctrl, fan, livekit.WithVoice(nil, espeak, voicepath.WithLogger(testLogger(t))))

	var packets, lastPacket atomic.Int64
	var mu sync.Mutex
	var said []string // every line the bot spoke, in order
	opening := make(chan string, 1)
	cb := &lksdk.RoomCallback{ParticipantCallback: lksdk.ParticipantCallback{
		OnDataPacket: func(data lksdk.DataPacket, _ lksdk.DataReceiveParams) {
			u, ok := data.(*lksdk.UserDataPacket)
			if !ok || u.Topic != livekit.TopicEvents {
				return
			}
			var ev runtime.Event
			if json.Unmarshal(u.Payload, &ev) != nil || ev.Event != runtime.EventSpoken {
				return
			}
			if p, err := ev.Decode(); err == nil {
				mu.Lock()
				said = append(said, p.(*runtime.SpokenPayload).Text)
				mu.Unlock()
				select {
				case opening <- p.(*runtime.SpokenPayload).Text:
				default:
				}
			}
		},
		OnTrackSubscribed: func(track *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, _ *lksdk.RemoteParticipant) {
			go func() {
				for {
					if _, _, err := track.ReadRTP(); err != nil {
						return
					}
					packets.Add(1)
					lastPacket.Store(time.Now().UnixNano())
				}
			}()
		},
	}}
	cand, err := lksdk.ConnectToRoomWithToken(e.srv.URL, e.srv.Token("candidate-1", livekit.RoleCandidate), cb, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cand.Disconnect)
	e.waitAudience(t, "candidate-1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var text string
	select {
	case text = <-opening:
	case <-ctx.Done():
		t.Fatal("no opening line reached the candidate")
	}
	// The candidate's subscription completes late: 3 s after the opening was decided.
	time.Sleep(3 * time.Second)
	var bot *lksdk.RemoteParticipant
	for _, rp := range cand.GetRemoteParticipants() {
		if rp.Identity() == "examtui-bot" {
			bot = rp
		}
	}
	if bot == nil || len(bot.TrackPublications()) == 0 {
		t.Fatal("the candidate does not see the bot's voice")
	}
	for _, pub := range bot.TrackPublications() {
		if err := pub.(*lksdk.RemoteTrackPublication).SetSubscribed(true); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 30*time.Second, func() bool {
		return packets.Load() > 0 && time.Since(time.Unix(0, lastPacket.Load())) > time.Second
	}, "the opening to be heard to its end")
	// The lines' audio, as the bot synthesised them: one packet per 10 ms of it (dtxFrame).
	mu.Lock()
	lines := append([]string(nil), said...)
	mu.Unlock()
	var want int64
	for _, line := range lines {
		want += int64(len(speech(t, line)) / 160)
	}
	t.Logf("opening %q and %d more lines: %d packets heard of about %d", text, len(lines)-1, packets.Load(), want)
	if got := packets.Load(); got < want*90/100 {
		t.Fatalf("the candidate heard %d packets of the opening's %d (%.0f%%)", got, want, 100*float64(got)/float64(want))
	}
}

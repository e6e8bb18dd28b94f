package web_test

import (
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/transport/livekit"
)

// listener is a Go participant subscribing to every track, counting the RTP packets of the
// candidate's microphone it receives.
type listener struct {
	room *lksdk.Room

	mu      sync.Mutex
	packets int
}

func (l *listener) heard() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.packets
}

func joinListener(t *testing.T, lk *lktest.Server, token, candidate string) *listener {
	t.Helper()
	l := &listener{}
	cb := &lksdk.RoomCallback{ParticipantCallback: lksdk.ParticipantCallback{
		OnTrackSubscribed: func(track *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
			if rp.Identity() != candidate || track.Kind() != webrtc.RTPCodecTypeAudio {
				return
			}
			go func() {
				for {
					if _, _, err := track.ReadRTP(); err != nil {
						return
					}
					l.mu.Lock()
					l.packets++
					l.mu.Unlock()
				}
			}()
		},
	}}
	room, err := lksdk.ConnectToRoomWithToken(lk.URL, token, cb) // auto-subscribes to every track
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(room.Disconnect)
	l.room = room
	return l
}

// rolelessToken is a token from another tool: it may join and subscribe, with no examtui role.
func rolelessToken(t *testing.T, lk *lktest.Server, identity string) string {
	t.Helper()
	g := &auth.VideoGrant{RoomJoin: true, Room: lk.Room}
	g.SetCanSubscribe(true)
	g.SetCanPublish(false)
	tok, err := auth.NewAccessToken(lk.APIKey, lk.Secret).SetIdentity(identity).SetVideoGrant(g).SetValidFor(time.Hour).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPageMicrophoneOnlyForExaminers: the page lets only the examtui bot and examiners
// subscribe to the candidate's microphone (setTrackSubscriptionPermissions), whether they were
// in the room before the candidate joined or came after. A participant without a role that
// subscribes to every track gets nothing of it, while an examiner who came at the same moment
// has heard a second of it.
func TestPageMicrophoneOnlyForExaminers(t *testing.T) {
	lk := lktest.Start(t)
	s := startSite(t, lk)
	const cand = "cand-mic"
	early := joinListener(t, lk, lk.Token("examiner-early", livekit.RoleExaminer), cand)
	eve := joinListener(t, lk, rolelessToken(t, lk, "eve-early"), cand)
	bot := joinListener(t, lk, lk.Token("examtui-bot", livekit.RoleBot), cand)

	b := browsertest.Start(t) // Chromium's own fake microphone: a beep, never silent for long
	p := b.Open(t, s.link(s.code(t, cand)))
	acknowledge(p)
	p.WaitTrue(`!document.querySelector("#join").disabled`, waitExam, "the Join button")
	p.Click("#join")
	p.WaitText("#connection", "Connected.", waitExam)

	late := joinListener(t, lk, lk.Token("examiner-late", livekit.RoleExaminer), cand)
	eveLate := joinListener(t, lk, rolelessToken(t, lk, "eve-late"), cand)
	for name, l := range map[string]*listener{"the bot": bot, "an examiner there before": early, "an examiner who came after": late} {
		testutil.Eventually(t, waitExam, func() bool { return l.heard() >= 50 }, "%s to hear a second of the candidate's microphone", name)
	}
	if n := eve.heard(); n != 0 {
		t.Errorf("a participant without a role, there before the candidate, received %d packets of the candidate's microphone", n)
	}
	if n := eveLate.heard(); n != 0 {
		t.Errorf("a participant without a role, come after the candidate, received %d packets of the candidate's microphone", n)
	}
	for _, rp := range eve.room.GetRemoteParticipants() {
		for _, pub := range rp.TrackPublications() {
			if rp.Identity() == cand && pub.Track() != nil {
				t.Errorf("a participant without a role is subscribed to the candidate's %s", pub.Name())
			}
		}
	}
}

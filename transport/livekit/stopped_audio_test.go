package livekit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	lkproto "github.com/livekit/protocol/livekit"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
	pionmedia "github.com/pion/webrtc/v4/pkg/media"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// rawMic is a candidate's microphone that sends exactly the Opus packets it is given, as a
// third-party client does: unlike the SDK's PCM track it sends nothing when nothing is
// written, so it can stop right after speech or imitate DTX (one packet per 400 ms of silence,
// its RTP timestamp advanced by the whole gap).
type rawMic struct {
	track *webrtc.TrackLocalStaticSample
	enc   media.PCM16Writer
	mu    sync.Mutex
	dur   time.Duration // the RTP duration the next packet claims
}

// rawMicWriter hands encoded packets to the track.
type rawMicWriter struct{ m *rawMic }

func (w rawMicWriter) String() string  { return "raw-mic" }
func (w rawMicWriter) SampleRate() int { return 48000 }
func (w rawMicWriter) Close() error    { return nil }
func (w rawMicWriter) WriteSample(s opus.Sample) error {
	return w.m.track.WriteSample(pionmedia.Sample{Data: append([]byte(nil), s...), Duration: w.m.dur})
}

func dialRawMic(t *testing.T, e *exam, identity string) *rawMic {
	t.Helper()
	track, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "mic", identity)
	if err != nil {
		t.Fatal(err)
	}
	m := &rawMic{track: track, dur: 20 * time.Millisecond}
	pcm, err := opus.Encode(rawMicWriter{m}, 1, protologger.GetLogger())
	if err != nil {
		t.Fatal(err)
	}
	m.enc = pcm
	room, err := lksdk.ConnectToRoomWithToken(e.srv.URL, e.srv.Token(identity, livekit.RoleCandidate), &lksdk.RoomCallback{})
	if err != nil {
		t.Fatalf("%s join: %v", identity, err)
	}
	t.Cleanup(room.Disconnect)
	if _, err := room.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{Name: "microphone", Source: lkproto.TrackSource_MICROPHONE}); err != nil {
		t.Fatal(err)
	}
	return m
}

// send encodes one 20 ms frame of 16 kHz audio (upsampled to Opus's 48 kHz) as one packet
// whose RTP duration is dur.
func (m *rawMic) send(frame16k []int16, dur time.Duration) error {
	up, err := audio.Resample(frame16k, 16000, 48000)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dur = dur
	return m.enc.WriteSample(media.PCM16Sample(up))
}

// play sends s in real time, 20 ms a packet.
func (m *rawMic) play(ctx context.Context, s []int16) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < len(s); i += 320 {
		f := make([]int16, 320)
		copy(f, s[i:min(i+320, len(s))])
		if err := m.send(f, 20*time.Millisecond); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// TestRoomVoiceTurnEndsWhenAudioStops sends an answer through the real LiveKit server from a
// client that stops sending right after it (a published file ending, mute, a stall), or that
// falls back to DTX packets: the turn must end on the clock and reach the controller within a
// few seconds, not when more audio arrives.
func TestRoomVoiceTurnEndsWhenAudioStops(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server and pocketsphinx")
	line := "Most guests are business travellers."
	cases := []struct {
		name string
		dtx  bool
	}{
		{name: "sender stops right after speech"},
		{name: "DTX sparse packets", dtx: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sphinx, err := audio.NewSphinx([]string{line})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sphinx.Close() })
			e := startExam(t)
			ctrl := newVoiceCtrl()
			bot, err := livekit.NewBot(e.bot, ctrl, livekit.WithVoice(sphinx, nil, voicepath.WithLogger(testLogger(t))))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { bot.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			turns := ctrl.turns
			m := dialRawMic(t, e, "candidate-raw")
			e.waitAudience(t, "candidate-raw")
			if err := m.play(ctx, make([]int16, 16000)); err != nil { // a second of silence first
				t.Fatal(err)
			}
			if err := m.play(ctx, speech(t, line)); err != nil {
				t.Fatal(err)
			}
			stopped := time.Now()
			if tc.dtx {
				go testutil.Every(ctx, 400*time.Millisecond, func() { _ = m.send(make([]int16, 320), 400*time.Millisecond) })
			}
			select {
			case tr := <-turns:
				took := time.Since(stopped)
				if !equalWords(tr.Text, line) {
					t.Errorf("heard %q, want %q", tr.Text, line)
				}
				t.Logf("turn reached the controller %v after the candidate stopped sending (endpointing %.0f ms, stt %.0f ms)",
					took.Round(time.Millisecond), tr.Latency.EndpointingMs, tr.Latency.STTMs)
			case <-time.After(15 * time.Second):
				t.Fatal("no turn 15 s after the candidate stopped sending: missing audio is not counted as silence")
			}
		})
	}
}

func equalWords(a, b string) bool {
	return audio.NormalizeForGrammar(a) == audio.NormalizeForGrammar(b)
}

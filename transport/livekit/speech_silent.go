package livekit

import (
	"fmt"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
)

// WithoutSpeech says the bot never speaks (its exam has no speech synthesizer: answers are
// typed and the examiner's lines reach the room as events). Its voice track is still
// published, since the server announces a participant who publishes a track to the others at
// once and one who publishes nothing only on its 3 s participant batch, but the track carries
// no audio. (The SDK's speaking track encoded and sent a frame every 10 ms even in silence;
// for dozens of bots that hold only typed exams, that silence was most of a worker's CPU and
// much of the server's, BenchmarkWorkerReplyLatency. A speaking bot's dtxTrack now sends
// nothing in silence either.) Writing to the voice then fails with ErrNoSpeech.
func WithoutSpeech() Option { return func(o *options) { o.silent = true } }

// publishSilent publishes an Opus track that never sends a packet: a placeholder that makes
// the bot a publisher.
func (v *Voice) publishSilent(lk *lksdk.Room) error {
	track, err := webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2},
		"examtui-silent", "examtui-voice")
	if err != nil {
		return fmt.Errorf("create %s track: %w", v.name, err)
	}
	if _, err := lk.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{
		Name:   v.name,
		Source: lkproto.TrackSource_MICROPHONE,
	}); err != nil {
		return fmt.Errorf("publish %s track: %w", v.name, err)
	}
	return nil
}

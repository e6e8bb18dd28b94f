package livekit

import (
	"log/slog"
	"testing"
)

// TestVoiceSentWithoutTrack: before the track is published (or after the room closed) nothing
// can be queued, so Sent is closed at once rather than leaving a writer waiting.
func TestVoiceSentWithoutTrack(t *testing.T) {
	v := newVoice(48000, "test", slog.New(slog.DiscardHandler))
	select {
	case <-v.Sent():
	default:
		t.Fatal("Sent not closed for a voice without a track")
	}
}

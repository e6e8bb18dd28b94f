package livekit

import (
	"log/slog"
	"math"
	"sync/atomic"
	"testing"

	"github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	"github.com/pion/rtp"
)

// opusPackets collects what an Opus encoder writes.
type opusPackets struct{ got []opus.Sample }

func (o *opusPackets) String() string  { return "test opus packets" }
func (o *opusPackets) SampleRate() int { return opusRate }
func (o *opusPackets) Close() error    { return nil }
func (o *opusPackets) WriteSample(s opus.Sample) error {
	o.got = append(o.got, append(opus.Sample(nil), s...))
	return nil
}

// TestDecoderMarksDTXFrames: an Opus DTX frame (the table of contents byte alone, as a
// browser's client sends once it has heard some silence) is decoded and handed on marked
// Quiet, so the receiver counts the silence after it at once; a frame of sound is not.
func TestDecoderMarksDTXFrames(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	var pkts opusPackets
	enc, err := opus.Encode(&pkts, 1, sdkLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	tone := make(media.PCM16Sample, opusRate/50) // 20 ms
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/opusRate))
	}
	for range 3 {
		if err := enc.WriteSample(tone); err != nil {
			t.Fatal(err)
		}
	}
	if len(pkts.got) == 0 || len(pkts.got[0]) <= maxDTXFrame {
		t.Fatalf("the encoder wrote %d packets (first %d bytes), want sound", len(pkts.got), len(pkts.got[0]))
	}
	sink := &frameSink{from: "candidate-1", rate: InputSampleRate, out: make(chan AudioFrame, 16), dropped: new(atomic.Int64), log: log}
	td := &trackDecoder{sink: sink, clock: opusRate, log: log}
	if td.dec, err = opus.Decode(pcmOut{td}, 1, sdkLogger(log)); err != nil {
		t.Fatal(err)
	}
	defer td.Close()
	dtx := opus.Sample{pkts.got[0][0] &^ 0x03} // the same configuration, no frame data
	for i, tc := range []struct {
		payload opus.Sample
		quiet   bool
	}{{pkts.got[0], false}, {dtx, true}, {pkts.got[1], false}} {
		h := &rtp.Header{Timestamp: uint32(i * opusRate / 50), SequenceNumber: uint16(i)}
		if err := td.HandleRTP(h, tc.payload); err != nil {
			t.Fatalf("packet %d (%d bytes): %v", i, len(tc.payload), err)
		}
		select {
		case f := <-sink.out:
			if f.Quiet != tc.quiet {
				t.Errorf("packet %d (%d bytes): Quiet %v, want %v", i, len(tc.payload), f.Quiet, tc.quiet)
			}
			if len(f.Samples) == 0 {
				t.Errorf("packet %d: no samples", i)
			}
		default:
			t.Fatalf("packet %d (%d bytes) decoded to nothing", i, len(tc.payload))
		}
	}
}

package audio

import (
	"math"
	"time"
)

// The one internal format: 16 kHz mono int16, 20 ms frames.
const (
	SampleRate    = 16000
	FrameDuration = 20 * time.Millisecond
	FrameSamples  = SampleRate / 50
	frameMs       = 20
)

// Frame is one 20 ms block of 16 kHz mono audio from a Source.
type Frame struct {
	// Samples holds FrameSamples samples; the slice belongs to the receiver.
	Samples []int16
	// Offset is the index of the first sample since the source started, so frames carry their
	// place on the session timeline even when some were dropped.
	Offset int64
	// Captured is when the frame was complete at the source (the capture callback's clock);
	// the VAD's latency measurement starts here.
	Captured time.Time
	// Missing marks a frame no audio arrived for (a live sender went quiet: muted, left,
	// stalled, or Opus DTX): its samples are silence and it counts as silence, without
	// teaching the VAD's noise floor that the room is digitally silent.
	Missing bool
}

// StartMs is the frame's position on the source timeline in milliseconds.
func (f Frame) StartMs() int64 { return samplesToMs(f.Offset) }

// Clip is a block of mono audio at any rate, as read from a file or a TTS provider.
type Clip struct {
	Samples []int16
	Rate    int
}

// Duration is the clip's length.
func (c Clip) Duration() time.Duration {
	if c.Rate <= 0 {
		return 0
	}
	return time.Duration(int64(len(c.Samples)) * int64(time.Second) / int64(c.Rate))
}

// To16k returns the clip at SampleRate, resampling when needed.
func (c Clip) To16k() (Clip, error) {
	if c.Rate == SampleRate {
		return c, nil
	}
	out, err := Resample(c.Samples, c.Rate, SampleRate)
	if err != nil {
		return Clip{}, err
	}
	return Clip{Samples: out, Rate: SampleRate}, nil
}

func samplesToMs(n int64) int64 { return n * 1000 / SampleRate }

func msToSamples(ms int64) int64 { return ms * SampleRate / 1000 }

// RMS is the root mean square of samples in sample units (0 for none): the loudness measure
// the room listeners and the tests compare against their thresholds.
func RMS(samples []int16) float64 {
	if len(samples) == 0 {
		return 0
	}
	var sum float64
	for _, v := range samples {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(samples)))
}

// LevelDB is the RMS level of samples in dB relative to full scale (-100 for digital silence);
// it is what the VAD thresholds and what a level meter shows.
func LevelDB(samples []int16) float64 {
	if len(samples) == 0 {
		return -100
	}
	var sum float64
	for _, s := range samples {
		v := float64(s)
		sum += v * v
	}
	ms := sum / float64(len(samples)) / (32768.0 * 32768.0)
	if ms <= 1e-10 {
		return -100
	}
	return 10 * math.Log10(ms)
}

// MeterFloorDB is the level a meter shows as empty.
const MeterFloorDB = -60.0

// MeterLevel maps a level in dBFS to 0..1 for a level meter: linear in dB from MeterFloorDB
// (empty) to 0 dBFS (full), because loudness is perceived logarithmically and speech sits
// around -30..-10 dBFS, which a linear amplitude scale would squeeze into the bottom third.
func MeterLevel(db float64) float64 {
	if math.IsNaN(db) {
		return 0
	}
	return min(max((db-MeterFloorDB)/-MeterFloorDB, 0), 1)
}

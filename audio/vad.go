package audio

import (
	"fmt"
	"time"
)

// VADConfig tunes the energy voice-activity detector. Levels are dB relative to full scale.
type VADConfig struct {
	// OnsetMarginDB: a frame starts speech when it is this far above the noise floor.
	OnsetMarginDB float64
	// ReleaseMarginDB: once speaking, frames this far above the floor still count as speech
	// (hysteresis, so the soft ends of words are kept).
	ReleaseMarginDB float64
	// MinLevelDB: the thresholds never drop below this, so digital silence followed by a quiet
	// hiss is not taken for speech.
	MinLevelDB float64
	// MinSpeech: consecutive loud frames needed to start speech (clicks and taps are shorter).
	MinSpeech time.Duration
	// Hangover: quiet time after the last speech frame before the VAD reports speech end.
	Hangover time.Duration
	// FloorWindow: the noise floor is the minimum frame level over this window...
	FloorWindow time.Duration
	// FloorRiseDBPerSec: ...but it rises at most this fast, so a long vowel cannot lift it to
	// speech level, while a noisier room is learned within seconds.
	FloorRiseDBPerSec float64
}

// DefaultVADConfig is tuned on espeak-ng and microphone speech at 16 kHz.
func DefaultVADConfig() VADConfig {
	return VADConfig{
		OnsetMarginDB:     10,
		ReleaseMarginDB:   6,
		MinLevelDB:        -55,
		MinSpeech:         60 * time.Millisecond,
		Hangover:          200 * time.Millisecond,
		FloorWindow:       time.Second,
		FloorRiseDBPerSec: 3,
	}
}

func (c VADConfig) validate() error {
	switch {
	case c.OnsetMarginDB <= 0 || c.ReleaseMarginDB <= 0 || c.ReleaseMarginDB > c.OnsetMarginDB:
		return fmt.Errorf("%w: VAD margins onset %.1f dB, release %.1f dB (want 0 < release ≤ onset)",
			ErrInvalidConfig, c.OnsetMarginDB, c.ReleaseMarginDB)
	case c.MinLevelDB >= 0 || c.MinLevelDB < -100:
		return fmt.Errorf("%w: VAD minimum level %.1f dBFS", ErrInvalidConfig, c.MinLevelDB)
	case c.MinSpeech < FrameDuration || c.Hangover < 0:
		return fmt.Errorf("%w: VAD min speech %v, hangover %v", ErrInvalidConfig, c.MinSpeech, c.Hangover)
	case c.FloorWindow < 5*FrameDuration || c.FloorRiseDBPerSec <= 0:
		return fmt.Errorf("%w: VAD floor window %v, rise %.1f dB/s", ErrInvalidConfig, c.FloorWindow, c.FloorRiseDBPerSec)
	}
	return nil
}

// VADResult is the detector's view of one frame.
type VADResult struct {
	LevelDB float64 // the frame's RMS level, for a meter
	FloorDB float64 // the current noise floor estimate
	// Voiced: the frame counts as speech (above the onset threshold, or above the release
	// threshold while speaking).
	Voiced bool
	// Speaking: the detector is inside speech (onset confirmed, hangover not yet run out).
	Speaking bool
	// Started: speech began; StartOffset is the first sample of the onset's first loud frame.
	Started     bool
	StartOffset int64
	// Ended: the hangover ran out; LastVoicedEnd is one past the last voiced sample.
	Ended bool
	// LastVoicedEnd is one past the last sample of the latest voiced frame while speaking.
	LastVoicedEnd int64
}

// VAD is an energy voice-activity detector with an adaptive noise floor, onset confirmation
// and hangover. It works on 20 ms frames and is not safe for concurrent use.
type VAD struct {
	cfg           VADConfig
	levels        []float64 // ring of recent frame levels for the floor minimum
	pos           int
	filled        int
	floor         float64
	started       bool // the floor has been initialised
	speaking      bool
	run           int   // consecutive loud frames while not speaking
	runStart      int64 // offset of the first of them
	quiet         int   // frames since the last voiced frame while speaking
	lastVoicedEnd int64
	minSpeech     int
	hangover      int
	risePerFrame  float64
}

// NewVAD returns a detector; a zero config means DefaultVADConfig.
func NewVAD(cfg VADConfig) (*VAD, error) {
	if cfg == (VADConfig{}) {
		cfg = DefaultVADConfig()
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &VAD{
		cfg:          cfg,
		levels:       make([]float64, int(cfg.FloorWindow/FrameDuration)),
		minSpeech:    int(cfg.MinSpeech / FrameDuration),
		hangover:     int((cfg.Hangover + FrameDuration - 1) / FrameDuration),
		risePerFrame: cfg.FloorRiseDBPerSec * FrameDuration.Seconds(),
	}, nil
}

// Process classifies one frame whose first sample is at offset on the source timeline.
func (v *VAD) Process(samples []int16, offset int64) VADResult {
	level := LevelDB(samples)
	v.updateFloor(level)
	return v.classify(level, offset, len(samples))
}

// ProcessMissing classifies a frame of n samples that never arrived (see Frame.Missing): it
// is quiet, so a hangover runs out and a turn can end, but the noise floor neither learns from
// it nor is lowered by it (the floor's history records the floor itself).
func (v *VAD) ProcessMissing(offset int64, n int) VADResult {
	if !v.started {
		r := VADResult{LevelDB: -100, FloorDB: v.floor}
		v.run = 0
		return r
	}
	v.updateFloor(v.floor)
	return v.classify(-100, offset, n)
}

func (v *VAD) classify(level float64, offset int64, n int) VADResult {
	end := offset + int64(n)
	onset := max(v.floor+v.cfg.OnsetMarginDB, v.cfg.MinLevelDB)
	release := max(v.floor+v.cfg.ReleaseMarginDB, v.cfg.MinLevelDB-(v.cfg.OnsetMarginDB-v.cfg.ReleaseMarginDB))
	r := VADResult{LevelDB: level, FloorDB: v.floor}
	if v.speaking {
		if level > release {
			r.Voiced = true
			v.quiet = 0
			v.lastVoicedEnd = end
		} else {
			v.quiet++
			if v.quiet > v.hangover {
				v.speaking = false
				v.run = 0
				r.Ended = true
			}
		}
	} else if level > onset {
		if v.run == 0 {
			v.runStart = offset
		}
		v.run++
		r.Voiced = true
		if v.run >= v.minSpeech {
			v.speaking = true
			v.quiet = 0
			v.lastVoicedEnd = end
			r.Started = true
			r.StartOffset = v.backtrack(release, n)
		}
	} else {
		v.run = 0
	}
	r.Speaking = v.speaking
	r.LastVoicedEnd = v.lastVoicedEnd
	return r
}

// backtrack moves the onset back over the quieter frames just before the loud run (a soft
// "th" or "h" opening the word), up to maxBacktrack frames, using the level history.
func (v *VAD) backtrack(release float64, frameLen int) int64 {
	start := v.runStart
	n := len(v.levels)
	idx := (v.pos - v.run - 1 + 2*n) % n // the frame before the run
	for k := 0; k < maxBacktrack && k < v.filled-v.run && start-int64(frameLen) >= 0; k++ {
		if v.levels[idx] <= release {
			break
		}
		start -= int64(frameLen)
		idx = (idx - 1 + n) % n
	}
	return start
}

// maxBacktrack bounds the onset backtrack to 200 ms.
const maxBacktrack = 10

func (v *VAD) updateFloor(level float64) {
	v.levels[v.pos] = level
	v.pos = (v.pos + 1) % len(v.levels)
	if v.filled < len(v.levels) {
		v.filled++
	}
	m := v.levels[0]
	for _, l := range v.levels[1:v.filled] {
		m = min(m, l)
	}
	switch {
	case !v.started:
		v.floor = level
		v.started = true
	case m < v.floor:
		v.floor = m
	default:
		v.floor = min(m, v.floor+v.risePerFrame)
	}
}

// Reset forgets speech state but keeps the learned noise floor (used after the examiner spoke,
// when mic frames were ignored).
func (v *VAD) Reset() {
	v.speaking = false
	v.run = 0
	v.quiet = 0
}

package audio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Track names one side of the conversation.
type Track int

// Tracks.
const (
	TrackCandidate Track = iota
	TrackExaminer
)

func (t Track) String() string {
	switch t {
	case TrackCandidate:
		return "candidate"
	case TrackExaminer:
		return "examiner"
	}
	return "unknown"
}

// SessionRecorder writes the candidate and examiner tracks of a session to two 16 kHz WAV
// files on one timeline: sample n of either file is the same instant, gaps are silence, and
// both files end at the same length, so they can be mixed or compared directly.
type SessionRecorder struct {
	mu     sync.Mutex
	start  time.Time
	w      [2]*wavFileWriter
	paths  [2]string
	closed bool
}

// NewSessionRecorder creates dir/candidate.wav and dir/examiner.wav; the timeline starts now.
func NewSessionRecorder(dir string) (*SessionRecorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("recorder directory: %w", err)
	}
	r := &SessionRecorder{start: time.Now()}
	for _, t := range []Track{TrackCandidate, TrackExaminer} {
		r.paths[t] = filepath.Join(dir, t.String()+".wav")
		w, err := createWAVWriter(r.paths[t], SampleRate)
		if err != nil {
			if t == TrackExaminer {
				_ = r.w[TrackCandidate].close()
			}
			return nil, err
		}
		r.w[t] = w
	}
	return r, nil
}

// Path is the file of a track.
func (r *SessionRecorder) Path(t Track) string { return r.paths[t] }

// Now is the current position on the timeline, in samples.
func (r *SessionRecorder) Now() int64 {
	return int64(time.Since(r.start) * SampleRate / time.Second)
}

// WriteAt places samples on a track at a timeline position (samples since the start),
// padding with silence up to it. Audio that would overlap what the track already holds is
// appended right after it instead (a track is never mixed with itself).
func (r *SessionRecorder) WriteAt(t Track, pos int64, samples []int16) error {
	if t != TrackCandidate && t != TrackExaminer {
		return fmt.Errorf("%w: track %d", ErrInvalidConfig, int(t))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	w := r.w[t]
	if gap := pos - w.samples; gap > 0 {
		if err := w.writeSilence(gap); err != nil {
			return err
		}
	}
	return w.write(samples)
}

// Write places samples on a track ending now (for audio that has just been heard).
func (r *SessionRecorder) Write(t Track, samples []int16) error {
	return r.WriteAt(t, max(0, r.Now()-int64(len(samples))), samples)
}

// Close pads both tracks to the same length and finishes the files.
func (r *SessionRecorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	n := max(r.w[0].samples, r.w[1].samples)
	var errs []error
	for _, w := range r.w {
		if err := w.writeSilence(n - w.samples); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, w.close())
	}
	return errors.Join(errs...)
}

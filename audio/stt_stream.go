package audio

import (
	"context"
	"fmt"
	"sync"
)

// StreamingRecognizer is a Recognizer that can also recognise a turn while it is being spoken:
// NewStream starts one long-lived recognition for one audio stream (a microphone, a room's
// candidate), fed the turn's audio as it arrives, so the transcript is ready right after the
// endpoint instead of starting there. Its one-shot Transcribe stays the fallback when a stream
// fails. Voice uses a stream whenever its recogniser offers one.
type StreamingRecognizer interface {
	Recognizer
	NewStream(ctx context.Context) (RecognitionStream, error)
}

// RecognitionStream recognises one turn at a time on a recogniser kept alive across turns. The
// caller feeds the turn's audio (16 kHz mono, from the turn's first sample) and asks for the
// transcript of everything fed so far with Cut or Final; it may go on feeding after a Cut (the
// candidate resumed after a pause) and ask again. Reset starts the next turn. Feed, Cut and
// Reset never wait for the recogniser, so they are safe on a capture loop; all methods are safe
// for concurrent use. A stream whose recogniser died restarts it; until then Cut fails at once
// so the caller can fall back to the one-shot path.
type RecognitionStream interface {
	// Reset drops the current turn (its recognition is abandoned) and starts an empty one.
	Reset()
	// Feed appends samples to the current turn. It copies them, and keeps them even when it
	// fails (the recogniser is down): a later Cut still covers the whole turn.
	Feed(samples []int16) error
	// Cut ends the recognition of what was fed so far and returns its pending transcript.
	Cut() *PendingTranscript
	// Final is Cut().Wait(ctx).
	Final(ctx context.Context) (Transcript, error)
	// Close stops the recogniser and its goroutines; later calls fail with ErrClosed.
	Close() error
}

// PendingTranscript is the transcript of a Cut, on its way. Wait may be called any number of
// times, from any goroutine.
type PendingTranscript struct {
	ready chan struct{}
	once  sync.Once
	t     Transcript
	err   error
}

func newPending() *PendingTranscript { return &PendingTranscript{ready: make(chan struct{})} }

// failedCut is a Cut that failed at once (no recogniser, nothing fed).
func failedCut(err error) *PendingTranscript {
	p := newPending()
	p.resolve(Transcript{}, err)
	return p
}

// resolve sets the answer; only the first call counts. It reports whether it was the first.
func (p *PendingTranscript) resolve(t Transcript, err error) bool {
	first := false
	p.once.Do(func() {
		first = true
		p.t, p.err = t, err
		close(p.ready)
	})
	return first
}

// Done reports whether the answer is there (Wait will not block).
func (p *PendingTranscript) Done() bool {
	select {
	case <-p.ready:
		return true
	default:
		return false
	}
}

// Wait returns the transcript, or an error when ctx ends first or the recognition failed.
func (p *PendingTranscript) Wait(ctx context.Context) (Transcript, error) {
	if p == nil {
		return Transcript{}, fmt.Errorf("%w: %w: no recognition", ErrSTT, ErrClosed)
	}
	select {
	case <-p.ready:
		return p.t, p.err
	case <-ctx.Done():
		return Transcript{}, fmt.Errorf("%w: waiting for the streaming transcript: %w", ErrSTT, ctx.Err())
	}
}

package audio

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Warmer is a provider that can get ready before it is first needed: open its connection
// (TCP, TLS, HTTP/2) or load its voice, so the first turns of an exam are as fast as the rest.
// Warming costs no speech or tokens.
type Warmer interface {
	Warm(ctx context.Context) error
}

// Warm warms every part that is a Warmer, at once, and returns when all are done (or ctx
// ends): the errors joined, none fatal to the caller (a provider that cannot be warmed is
// still tried when needed).
func Warm(ctx context.Context, parts ...any) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, p := range parts {
		w, ok := p.(Warmer)
		if !ok || w == nil {
			continue
		}
		wg.Go(func() {
			if err := w.Warm(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%w: %T: %w", ErrWarm, p, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Warm opens the connection to the transcription server (the model list, free).
func (r *OpenAIRecognizer) Warm(ctx context.Context) error {
	_, err := r.client.ListModels(ctx)
	return err
}

// Warm opens the connection to the speech server (the model list, free).
func (s *OpenAISpeech) Warm(ctx context.Context) error {
	_, err := s.client.ListModels(ctx)
	return err
}

// Warm runs espeak-ng once on a short word, so its program and voice data are loaded before
// the first line.
func (e *Espeak) Warm(ctx context.Context) error {
	_, err := e.Synthesize(ctx, "a", SpeakOptions{})
	return err
}

package audio

import "context"

// StreamSynthesizer is a Synthesizer that hands its speech over as it arrives, so a line can
// start playing on its first frame rather than once the whole sentence is synthesised.
type StreamSynthesizer interface {
	Synthesizer
	// SynthesizeStream synthesises text as Synthesize does, calling part with each run of the
	// audio, in order and all at one rate, as it arrives; it returns the whole clip.
	SynthesizeStream(ctx context.Context, text string, opts SpeakOptions, part func(Clip)) (Clip, error)
}

// SynthesizeStream synthesises text with s's stream when it has one; otherwise it hands the
// whole clip to part once it is synthesised. part may be nil: the whole clip is returned.
func SynthesizeStream(ctx context.Context, s Synthesizer, text string, opts SpeakOptions, part func(Clip)) (Clip, error) {
	if ss, ok := s.(StreamSynthesizer); ok {
		return ss.SynthesizeStream(ctx, text, opts, part)
	}
	c, err := s.Synthesize(ctx, text, opts)
	handWhole(c, err, part)
	return c, err
}

// handWhole gives part (when not nil) a clip that came whole, unless it is empty or failed.
func handWhole(c Clip, err error, part func(Clip)) {
	if part != nil && err == nil && len(c.Samples) > 0 {
		part(c)
	}
}

// StreamSink is a Sink that plays a clip while it is still arriving.
type StreamSink interface {
	Sink
	// PlayStream plays the runs of one clip (all at one rate) as they arrive on parts, and
	// returns once parts is closed and everything has played, or Stop was called, or ctx ended.
	PlayStream(ctx context.Context, parts <-chan Clip) (PlayResult, error)
}

// PlayStream plays the clip arriving on parts on sink: as it arrives on a StreamSink, else
// whole once parts is closed.
func PlayStream(ctx context.Context, sink Sink, parts <-chan Clip) (PlayResult, error) {
	if ss, ok := sink.(StreamSink); ok {
		return ss.PlayStream(ctx, parts)
	}
	var whole Clip
	for {
		select {
		case c, ok := <-parts:
			if !ok {
				return sink.Play(ctx, whole)
			}
			whole.Rate = c.Rate
			whole.Samples = append(whole.Samples, c.Samples...)
		case <-ctx.Done():
			return PlayResult{Total: whole.Duration()}, ctx.Err()
		}
	}
}

// RelayParts forwards the runs arriving on parts to the channel it returns, calling each (when
// not nil) with every run first, until parts is closed or stop is; then it closes the channel.
func RelayParts(parts <-chan Clip, stop <-chan struct{}, each func(Clip)) <-chan Clip {
	out := make(chan Clip)
	go func() {
		defer close(out)
		for {
			var c Clip
			var ok bool
			select {
			case c, ok = <-parts:
			case <-stop:
				return
			}
			if !ok {
				return
			}
			if each != nil {
				each(c)
			}
			select {
			case out <- c:
			case <-stop:
				return
			}
		}
	}()
	return out
}

// leadTrimmer drops the quiet a stream opens with, as Clip.TrimLeadingQuiet does for a whole
// clip: it holds the runs back until the first sound, then passes everything on.
type leadTrimmer struct {
	held  Clip
	found bool
}

// add takes one run and returns what may be played of the stream so far (nothing while only
// quiet has come).
func (t *leadTrimmer) add(c Clip) Clip {
	if t.found {
		return c
	}
	t.held.Rate = c.Rate
	t.held.Samples = append(t.held.Samples, c.Samples...)
	if t.held.firstSound() < 0 {
		return Clip{Rate: c.Rate} // quiet so far: wait for more
	}
	t.found = true
	out := t.held.TrimLeadingQuiet()
	t.held = Clip{}
	return out
}

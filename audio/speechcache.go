package audio

import (
	"container/list"
	"context"
	"sync"
)

// SpeechCache keeps the speech of the lines a synthesiser said, so a line said again (an
// examiner's "Thank you." at the start of many replies, a question repeated on request, the
// resume line) plays at once and costs a paid voice nothing more. It holds the most recently
// said lines up to a size, by text and options (voice, speed, language); an error is not
// kept. Safe for concurrent use.
type SpeechCache struct {
	Synthesizer
	max int // bytes of samples kept at most

	mu     sync.Mutex
	lines  map[speechKey]*list.Element
	order  *list.List // front: most recently said
	size   int
	hits   uint64
	misses uint64
}

type speechKey struct {
	text string
	opts SpeakOptions
}

type speechEntry struct {
	key  speechKey
	clip Clip
}

// NewSpeechCache keeps up to maxBytes of s's speech (2 bytes a sample).
func NewSpeechCache(s Synthesizer, maxBytes int) *SpeechCache {
	return &SpeechCache{Synthesizer: s, max: maxBytes, lines: map[speechKey]*list.Element{}, order: list.New()}
}

// Synthesize returns text's speech, from the cache when it was said with the same options
// before. The clip is the caller's own: a copy.
func (c *SpeechCache) Synthesize(ctx context.Context, text string, opts SpeakOptions) (Clip, error) {
	k := speechKey{text, opts}
	if clip, ok := c.lookup(k); ok {
		return clip, nil
	}
	clip, err := c.Synthesizer.Synthesize(ctx, text, opts)
	if err != nil {
		return clip, err
	}
	c.keep(k, Clip{Samples: append([]int16(nil), clip.Samples...), Rate: clip.Rate})
	return clip, nil
}

// SynthesizeStream returns text's speech as Synthesize does, handing it to part as it arrives
// from the synthesiser, or at once, whole, from the cache (StreamSynthesizer).
func (c *SpeechCache) SynthesizeStream(ctx context.Context, text string, opts SpeakOptions, part func(Clip)) (Clip, error) {
	k := speechKey{text, opts}
	if clip, ok := c.lookup(k); ok {
		handWhole(clip, nil, part)
		return clip, nil
	}
	clip, err := SynthesizeStream(ctx, c.Synthesizer, text, opts, part)
	if err != nil {
		return clip, err
	}
	c.keep(k, Clip{Samples: append([]int16(nil), clip.Samples...), Rate: clip.Rate})
	return clip, nil
}

// lookup returns a copy of k's speech when the cache has it, counting the hit or the miss.
func (c *SpeechCache) lookup(k speechKey) (Clip, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lines[k]
	if !ok {
		c.misses++
		return Clip{}, false
	}
	c.order.MoveToFront(e)
	c.hits++
	clip := e.Value.(*speechEntry).clip
	return Clip{Samples: append([]int16(nil), clip.Samples...), Rate: clip.Rate}, true
}

// keep adds a line's speech, dropping the least recently said lines beyond the size.
func (c *SpeechCache) keep(k speechKey, clip Clip) {
	n := 2 * len(clip.Samples)
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.lines[k]; ok {
		return // said twice at once: the first to finish is kept
	}
	c.lines[k] = c.order.PushFront(&speechEntry{key: k, clip: clip})
	c.size += n
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*speechEntry)
		c.order.Remove(last)
		delete(c.lines, e.key)
		c.size -= 2 * len(e.clip.Samples)
	}
}

// Warm warms the synthesiser underneath.
func (c *SpeechCache) Warm(ctx context.Context) error { return Warm(ctx, c.Synthesizer) }

// SpeechCacheStats says how often a line was found in the cache.
type SpeechCacheStats struct {
	Hits, Misses uint64
	Lines, Bytes int
}

// Stats returns the cache's counts so far.
func (c *SpeechCache) Stats() SpeechCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return SpeechCacheStats{Hits: c.hits, Misses: c.misses, Lines: len(c.lines), Bytes: c.size}
}

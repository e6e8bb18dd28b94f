package audio_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/examtui/examtui/audio"
)

// countingVoice says each line as a clip of its own length, and counts what it was asked.
type countingVoice struct {
	calls atomic.Int64
	fail  string // a line it fails on
}

func (v *countingVoice) Synthesize(_ context.Context, text string, opts audio.SpeakOptions) (audio.Clip, error) {
	v.calls.Add(1)
	if text == v.fail {
		return audio.Clip{}, errors.New("voice down")
	}
	n := 100 * len(text)
	if opts.Speed > 0 {
		n = int(float64(n) / opts.Speed)
	}
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(len(text))
	}
	return audio.Clip{Samples: s, Rate: 24000}, nil
}

func TestSpeechCache(t *testing.T) {
	ctx := context.Background()
	v := &countingVoice{fail: "Broken."}
	c := audio.NewSpeechCache(v, 2*100*len("Thank you.")*3) // room for three such lines
	say := func(text string, opts audio.SpeakOptions) audio.Clip {
		t.Helper()
		clip, err := c.Synthesize(ctx, text, opts)
		if err != nil {
			t.Fatal(err)
		}
		return clip
	}
	first := say("Thank you.", audio.SpeakOptions{})
	first.Samples[0] = 0 // the caller's own copy: the cache must not see this
	again := say("Thank you.", audio.SpeakOptions{})
	if v.calls.Load() != 1 || len(again.Samples) != len(first.Samples) || again.Samples[0] != int16(len("Thank you.")) {
		t.Fatalf("said again: %d calls, %d samples, first sample %d", v.calls.Load(), len(again.Samples), again.Samples[0])
	}
	say("Thank you.", audio.SpeakOptions{Speed: 0.8}) // slower is another line
	say("Thank you.", audio.SpeakOptions{Voice: "en-gb"})
	if v.calls.Load() != 3 {
		t.Fatalf("another voice or speed: %d calls, want 3", v.calls.Load())
	}
	if _, err := c.Synthesize(ctx, "Broken.", audio.SpeakOptions{}); err == nil {
		t.Fatal("the voice's error was lost")
	}
	if _, err := c.Synthesize(ctx, "Broken.", audio.SpeakOptions{}); err == nil || v.calls.Load() != 5 {
		t.Fatalf("an error was kept: %v, %d calls", err, v.calls.Load())
	}
	// Three more lines of the same size push the least recently said ones out.
	for _, l := range []string{"Go on, pl", "I see, ye", "Right, an"} {
		say(l, audio.SpeakOptions{})
	}
	before := v.calls.Load()
	say("Right, an", audio.SpeakOptions{})
	say("Thank you.", audio.SpeakOptions{})
	if got := v.calls.Load() - before; got != 1 {
		t.Errorf("after the cache filled: %d calls for a recent line and an old one, want 1 (the old one)", got)
	}
	if st := c.Stats(); st.Bytes > 2*100*len("Thank you.")*3 || st.Hits != 2 {
		t.Errorf("stats %+v", st)
	}
}

// The cache is safe for concurrent use: every caller gets the line's speech, whether it was
// made for it or found.
func TestSpeechCacheConcurrent(t *testing.T) {
	v := &countingVoice{}
	c := audio.NewSpeechCache(v, 1<<20)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			text := fmt.Sprintf("Line %d.", i%4)
			clip, err := c.Synthesize(context.Background(), text, audio.SpeakOptions{})
			if err != nil || len(clip.Samples) != 100*len(text) {
				t.Errorf("%q: %v, %d samples", text, err, len(clip.Samples))
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Lines != 4 || st.Hits+st.Misses != 16 {
		t.Errorf("stats %+v", st)
	}
}

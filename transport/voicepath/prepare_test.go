package voicepath

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// specCtrl is a controller that tells what its speculation would say.
type specCtrl struct {
	*ctrl
	line runtime.SpokenPayload
}

func (c *specCtrl) SpeculativeLine(context.Context) (runtime.SpokenPayload, bool) {
	return c.line, true
}

// sentences is espeak-ng keeping each sentence it is asked to synthesise.
type sentences struct {
	audio.Synthesizer
	mu  sync.Mutex
	got []string
}

func (s *sentences) Synthesize(ctx context.Context, text string, o audio.SpeakOptions) (audio.Clip, error) {
	s.mu.Lock()
	s.got = append(s.got, text)
	s.mu.Unlock()
	return s.Synthesizer.Synthesize(ctx, text, o)
}

func (s *sentences) synthesised() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// TestPreparedFirstSentence: the first sentence of what the speculation would say is
// synthesised during the pause and played when the spoken line that follows starts with those
// very words in the same voice and speed (synthesised once); any other line is synthesised as
// usual and the prepared audio dropped.
func TestPreparedFirstSentence(t *testing.T) {
	const predicted = "The buffet opens at seven o'clock. What would you like to know?"
	cases := []struct {
		name  string
		said  runtime.SpokenPayload
		want  []string // the sentences synthesised, the prepared one first
		stats PreparedStats
	}{
		{"the line predicted", runtime.SpokenPayload{Text: predicted},
			[]string{"The buffet opens at seven o'clock.", "What would you like to know?"}, PreparedStats{Prepared: 1, Used: 1}},
		{"other words", runtime.SpokenPayload{Text: "The pool opens at eight o'clock."},
			[]string{"The buffet opens at seven o'clock.", "The pool opens at eight o'clock."}, PreparedStats{Prepared: 1, Discarded: 1}},
		{"the same words slower", runtime.SpokenPayload{Text: predicted, TTSSpeed: 0.8},
			[]string{"The buffet opens at seven o'clock.", "The buffet opens at seven o'clock.", "What would you like to know?"},
			PreparedStats{Prepared: 1, Discarded: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			espeak, err := audio.NewEspeak()
			if err != nil {
				t.Skipf("espeak-ng: %v", err)
			}
			synth := &sentences{Synthesizer: espeak}
			c := &specCtrl{ctrl: newCtrl(nil), line: runtime.SpokenPayload{Text: predicted, Source: runtime.SpokenExaminer}}
			p, err := New(c, Parts{Synthesizer: synth, Sink: newClockSink()}, WithLogger(testutil.Logger(t, -4)),
				WithEndOfTurn(EndAdaptive, audio.EndpointConfig{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			p.prepareReply()
			testutil.Eventually(t, 20*time.Second, func() bool { return len(synth.synthesised()) == 1 }, "the first sentence to be prepared")
			p.Deliver(event(t, 1, &tc.said))
			testutil.Recv(t, c.done, 20*time.Second, "the line to be said")
			if got := synth.synthesised(); !slices.Equal(got, tc.want) {
				t.Errorf("synthesised %q, want %q", got, tc.want)
			}
			if got := p.Prepared(); got != tc.stats {
				t.Errorf("prepared %+v, want %+v", got, tc.stats)
			}
		})
	}
}

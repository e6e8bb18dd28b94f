package headless_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

// TestSpeakHook: with Options.Speak every say step goes through the hook (what a voice path
// heard), silence and wait steps do not, a step's confidence caps the heard one, and a
// failing hook becomes a step error.
func TestSpeakHook(t *testing.T) {
	s := loadExample(t, "hotel-rehearsal.yaml")
	said := s.Said()
	if len(said) != 6 || said[1] != "Sorry, could you repeat the question?" {
		t.Fatalf("Said() = %q", said)
	}
	var calls []string
	speak := func(_ context.Context, got *headless.Script, say string) (runtime.Turn, error) {
		if got != s {
			t.Errorf("hook called with another script")
		}
		calls = append(calls, say)
		heard := strings.ToLower(strings.NewReplacer(",", "", ".", "", "?", "", "-", " ").Replace(say))
		return runtime.Turn{Text: heard, Confidence: 0.9, Duration: 3 * time.Second, Source: runtime.SourceMic,
			Latency: runtime.Latency{EndpointingMs: 500, STTMs: 40}}, nil
	}
	r := runScript(t, s, headless.Options{Speak: speak})
	if !r.Passed || len(calls) != len(said) {
		t.Fatalf("passed %v after %d hook calls: %v", r.Passed, len(calls), r.Failures)
	}
	for i, turn := range r.Turns {
		if turn.Said != strings.ToLower(strings.NewReplacer(",", "", ".", "", "?", "", "-", " ").Replace(said[i])) {
			t.Errorf("turn %d said %q", i+1, turn.Said)
		}
		if turn.LatencyMs < 540 {
			t.Errorf("turn %d latency %.1f ms: the hook's endpointing and STT stages are missing", i+1, turn.LatencyMs)
		}
	}
	for _, ev := range r.Log {
		if ev.Event != runtime.EventTranscriptSegment {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if seg := p.(*runtime.TranscriptSegmentPayload); seg.Speaker == runtime.SpeakerCandidate && (seg.Source != runtime.SourceMic || seg.Confidence != 0.9 || seg.DurationMs != 3000) {
			t.Errorf("candidate segment %+v", seg)
		}
	}

	low := loadScript(t, "testdata/low-confidence.yaml")
	var confs []float64
	r = runScript(t, low, headless.Options{Speak: func(_ context.Context, _ *headless.Script, say string) (runtime.Turn, error) {
		return runtime.Turn{Text: say, Confidence: 0.95, Duration: time.Second, Source: runtime.SourceMic}, nil
	}})
	for _, ev := range r.Log {
		if p, err := ev.Decode(); err == nil {
			if seg, ok := p.(*runtime.TranscriptSegmentPayload); ok && seg.Speaker == runtime.SpeakerCandidate && seg.Text != "" {
				confs = append(confs, seg.Confidence)
			}
		}
	}
	capped := false
	for _, c := range confs {
		capped = capped || c < 0.95
	}
	if !capped || !r.Passed {
		t.Errorf("confidences %v, passed %v %v: the script's low confidence must cap the heard one", confs, r.Passed, r.Failures)
	}

	boom := errors.New("no speech detected")
	r = runScript(t, s, headless.Options{Speak: func(context.Context, *headless.Script, string) (runtime.Turn, error) {
		return runtime.Turn{}, boom
	}})
	if r.Passed || len(r.StepErrors) != len(said) || !strings.Contains(r.StepErrors[0], "no speech detected") {
		t.Errorf("step errors %q", r.StepErrors)
	}
}

package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// SpeculativeLine tells, without emitting anything, what the reply to a speculated turn would
// say; when the turn is then submitted with the same words, the spoken events carry exactly
// that text (the first of them starts with it), so a voice path can synthesise it ahead. With
// different final words the speculation is discarded and SpeculativeLine has nothing to say.
func TestSpeculativeLineIsWhatTheReplySays(t *testing.T) {
	for _, tc := range []struct {
		name  string
		final func(interim string) string
		match bool
	}{
		{name: "same words", final: func(s string) string { return s }, match: true},
		{name: "the candidate went on", final: func(s string) string { return strings.TrimSuffix(s, ".") + " and the pool." }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exam := runtimetest.DemoExam(t, nil)
			h := newHarness(t, exam, newOffline(t))
			h.start()
			predicted := 0
			for i, text := range runtimetest.RehearsalAnswers {
				h.clock.Advance(2 * time.Second)
				turn := runtime.Turn{Text: text, Duration: time.Second, Confidence: 0.9, Source: runtime.SourceMic}
				if err := h.c.Speculate(h.ctx, turn); err != nil {
					t.Fatal(err)
				}
				before := len(h.rec.Events())
				ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
				line, ok := h.c.SpeculativeLine(ctx)
				cancel()
				if n := len(h.rec.Events()); n != before {
					t.Fatalf("turn %d: SpeculativeLine emitted %d events", i, n-before)
				}
				turn.Text = tc.final(text)
				if err := h.c.SubmitTurn(h.ctx, turn); err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				// What the voice path says as one line: the first spoken events, in one node.
				var said []string
				for _, sp := range runtimetest.Payloads[*runtime.SpokenPayload](t, h.rec.Events()[before:]) {
					if sp.NodeID == line.NodeID {
						said = append(said, sp.Text)
					}
				}
				if !ok {
					t.Logf("turn %d: not predicted; said %q", i, said)
					continue
				}
				predicted++
				if got := strings.Join(said, " "); !strings.HasPrefix(got, line.Text) && tc.match {
					t.Errorf("turn %d: predicted %q in %s, said %q", i, line.Text, line.NodeID, got)
				}
			}
			t.Logf("%d of %d replies predicted", predicted, len(runtimetest.RehearsalAnswers))
			// Every reply of the rehearsal can be told: the examiner's words, or the next
			// node's opening where the reply moves the exam on.
			if n := len(runtimetest.RehearsalAnswers); tc.match && predicted != n {
				t.Errorf("%d of %d replies predicted", predicted, n)
			}
			stats := h.c.Speculations()
			if tc.match && stats.Reused != len(runtimetest.RehearsalAnswers) {
				t.Errorf("speculations %+v: every one should be reused", stats)
			}
			if !tc.match && stats.Reused != 0 {
				t.Errorf("speculations %+v: none should be reused", stats)
			}
		})
	}
}

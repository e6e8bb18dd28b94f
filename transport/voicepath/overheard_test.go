package voicepath

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestHeldBackchannelRecorded: a sound the candidate makes over the examiner's line, too short
// to cut it, is decided by its words. A backchannel takes no turn and the line plays on, but
// its words are on the record: a candidate segment (overheard) with a not_assessed
// (backchannel), so the stored log keeps the rule that every segment with words is observed
// once or marked (runtimetest.CheckAssessedOnce). A cough has no words and leaves nothing; an
// interruption ("Wait.") goes on as a turn. Through the real controller.
func TestHeldBackchannelRecorded(t *testing.T) {
	for _, tc := range []struct {
		name, words string
		turn        bool
		recorded    bool
	}{
		{"mm-hmm", "Mm-hmm.", false, true},
		{"yeah okay", "Yeah, okay.", false, true},
		{"cough", "", false, false},
		{"wait", "Wait.", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &runtime.Recorder{}
			fan := runtime.NewFanout(rec)
			ex, err := offline.New()
			if err != nil {
				t.Fatal(err)
			}
			c, err := runtime.NewController(exam(t, ""), ex, runtime.WithSink(fan), runtime.WithSessionID("held"),
				runtime.WithLogger(testutil.Logger(t, -4)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			p, _ := newPath(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			const start = 1000
			least := audio.DefaultBargeInSpeech
			if p.bargeInDecision(audio.BargeInEvidence{Voiced: least, Min: least, TurnStartMs: start}) {
				t.Fatal("a short sound cut the line")
			}
			ft := audio.FinalTranscript{Transcript: audio.Transcript{Text: tc.words}, StartMs: start, DurationMs: 450}
			if got := p.takesTurn(ft); got != tc.turn {
				t.Fatalf("a turn = %v, want %v", got, tc.turn)
			}
			log := rec.Events()
			var seg *runtime.TranscriptSegmentPayload
			for _, s := range runtimetest.Payloads[*runtime.TranscriptSegmentPayload](t, log) {
				if s.Speaker == runtime.SpeakerCandidate {
					seg = s
				}
			}
			var marked []*runtime.RecoveryPayload
			for _, r := range runtimetest.Payloads[*runtime.RecoveryPayload](t, log) {
				if r.Kind == runtime.RecoveryNotAssessed {
					marked = append(marked, r)
				}
			}
			switch {
			case !tc.recorded && (seg != nil || len(marked) > 0):
				t.Errorf("recorded %+v %+v, want nothing", seg, marked)
			case tc.recorded && (seg == nil || seg.Text != tc.words || !seg.Overheard):
				t.Errorf("candidate segment %+v, want %q overheard: the words are lost", seg, tc.words)
			case tc.recorded && (len(marked) != 1 || marked[0].Reason != runtime.NotAssessedBackchannel || marked[0].SegmentID != seg.SegmentID):
				t.Errorf("not_assessed %+v, want one backchannel naming %s", marked, seg.SegmentID)
			}
			if err := runtimetest.CheckAssessedOnce(log); err != nil {
				t.Error(err)
			}
		})
	}
}

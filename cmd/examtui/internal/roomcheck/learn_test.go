package roomcheck_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/roomcheck"
	"github.com/examtui/examtui/internal/lktest"
)

// TestRunLearnsTheCandidatesPauses speaks through a real room a candidate who pauses about
// 350 ms after words that read as a complete answer (the marker's 20 ms and the silence at the
// ends of espeak-ng's two parts), longer than a complete answer's wait. The first time the
// examiner takes the turn in that pause (a cut-off the script expects, and one the fixed
// 250 ms complete-answer wait would make every time), and the candidate going on teaches the
// bot the pause; the second time, in a later answer, the same pause is waited out.
func TestRunLearnsTheCandidatesPauses(t *testing.T) {
	srv := lktest.Start(t)
	s := script(t, `turns:
  - say: "Hello, I'm Priya and I'm on the hospitality management course."
  - say: "We could open a second buffet line [pause 20ms] or another way is a grab-and-go counter."
    cutOff: true
  - say: "Most guests at that time are business travellers [pause 20ms] who are in a hurry."
`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := roomcheck.Run(ctx, s, hopts(), roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		RecordDir: t.TempDir(), Spoken: true, ReplyTimeout: 20 * time.Second, Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Voice
	if v == nil || len(v.Replies) != 3 {
		t.Fatalf("voice report %+v (step errors %v)", v, res.StepErrors)
	}
	for _, rp := range v.Replies {
		t.Logf("step %d: latency %.0f ms, cut-offs %+v", rp.Step, rp.LatencyMs, rp.CutOffs)
		if rp.Error != "" {
			t.Errorf("step %d: %s", rp.Step, rp.Error)
		}
	}
	first, again := v.Replies[1], v.Replies[2]
	if len(first.CutOffs) != 1 || first.CutOffs[0].PauseMs > 500 {
		t.Errorf("the first short pause: cut-offs %+v, want one (a complete answer's wait is shorter than it)", first.CutOffs)
	}
	if len(again.CutOffs) != 0 {
		t.Errorf("the same pause again was cut off: %+v", again.CutOffs)
	}
	if !res.Passed {
		t.Errorf("the run failed: %+v", res.Failures)
	}
}

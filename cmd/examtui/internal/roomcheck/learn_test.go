package roomcheck_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
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
	// The bot's turns say it, whatever the machine's load: whether the examiner's reply was
	// audible before the candidate went on depends on how fast the reply came, where the turn
	// ended does not (the endpointer counts the candidate's samples, not the clock).
	var said []string
	for _, tr := range res.Turns {
		said = append(said, audio.NormalizeForGrammar(tr.Said)) // the words, whatever the punctuation
	}
	if len(said) != 4 || !strings.HasSuffix(said[1], "buffet line") || !strings.HasPrefix(said[2], "or another way") ||
		!strings.HasSuffix(said[3], "who are in a hurry") {
		t.Errorf("turns %q: want the second answer ended in its pause (two turns), the third taken whole", said)
	}
	if again := v.Replies[2]; len(again.CutOffs) != 0 {
		t.Errorf("the same pause again was cut off: %+v", again.CutOffs)
	}
	if !res.Passed {
		t.Errorf("the run failed: %+v", res.Failures)
	}
}

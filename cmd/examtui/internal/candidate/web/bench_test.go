package web_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/examtui/examtui/runtime"

	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/transport/voicepath"
)

// BenchmarkBrowserLatency measures the reply latency a candidate's browser experiences: the
// page (?measure) reads an AnalyserNode on its microphone track and one on the examiner's
// remote track in one AudioContext, and per turn takes the candidate's last voiced window → the
// examiner's first voiced window. Each iteration is the demo exam answered by voice (6 turns);
// -benchtime 2x gives 12. Reported: p50-ms and p95-ms over every turn (audible in the page),
// and where the time went on the bot's side per stage from the speech end it heard
// (voicepath.Timing): closed, recognised, observation, sentence, frame, packet.
func BenchmarkBrowserLatency(b *testing.B) {
	var turns []float64
	stages := make([][]float64, len(voicepath.Stages()))
	for i := 0; b.Loop(); i++ {
		r := newRoom(b)
		p := r.join(b, r.site.link(r.site.code(b, "cand-latency"))+"?measure")
		r.speakAll(b, p)
		p.WaitTrue(`window.examtuiMeasure.turns.length >= 5`, waitExam, "DEBUG 5")
		r.exam.quiet(b, r.exam.count(runtime.EventSpoken)-1)
		fmt.Fprintf(os.Stderr, "DEBUG page turns %s\n at %s\nrecogniser:\n  %s\n", browsertest.Eval[string](p, `JSON.stringify(window.examtuiMeasure.turns)`), browsertest.Eval[string](p, `JSON.stringify(window.examtuiMeasure.at)`), r.answers)
		fmt.Fprintf(os.Stderr, "DEBUG stats %s\n", browsertest.Eval[string](p, `window.examtuiMeasure.stats()`))
		r.exam.mu.Lock()
		for _, tm := range r.exam.timings {
			c, _ := tm.Since(voicepath.StageClosed)
			f, _ := tm.Since(voicepath.StageFirstPacket)
			fmt.Fprintf(os.Stderr, "DEBUG bot %q end %d closed %.0f packet %.0f (at %d)\n", tm.Text, tm.SpeechEnd.UnixMilli(), c, f, tm.At(voicepath.StageFirstPacket).UnixMilli())
		}
		r.exam.mu.Unlock()
		// The examiner's closing line follows the last answer.
		p.WaitTrue(`window.examtuiMeasure.turns.length >= 6`, waitExam, "a reply to each of the 6 answers")
		got := browsertest.Eval[[]float64](p, `window.examtuiMeasure.turns`)
		b.Logf("exam %d: %v ms", i+1, got)
		turns = append(turns, got...)
		r.exam.mu.Lock()
		for _, tm := range r.exam.timings {
			for _, s := range voicepath.Stages() {
				if ms, ok := tm.Since(s); ok {
					stages[s] = append(stages[s], ms)
				}
			}
		}
		r.exam.mu.Unlock()
		p.Close()
		r.browser.Close()
	}
	if len(turns) < 6 {
		b.Fatalf("%d turns measured, want at least 6 per exam", len(turns))
	}
	slices.Sort(turns)
	for _, s := range voicepath.Stages() {
		b.ReportMetric(headless.Percentile(stages[s], 50), s.Key()+"-p50-ms")
		b.ReportMetric(headless.Percentile(stages[s], 95), s.Key()+"-p95-ms")
	}
	b.ReportMetric(percentile(turns, 50), "p50-ms")
	b.ReportMetric(percentile(turns, 95), "p95-ms")
	b.ReportMetric(float64(len(turns)), "turns")
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

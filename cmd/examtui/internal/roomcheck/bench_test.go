package roomcheck_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/roomcheck"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/transport/voicepath"
)

// BenchmarkSpokenReplyLatency runs the example script spoken through a local LiveKit server
// with the offline stack (espeak-ng candidate, VAD and endpointing, pocketsphinx, the offline
// examiner, espeak-ng examiner) and reports the reply latency the harness measures: from the
// candidate's last voiced sample to the examiner's first audio at the candidate, p50 and p95
// over every reply of b.N runs. "fixed" is the 500 ms endpointing delay alone; "adaptive" the
// end of turn that `examtui run --room` uses. Where the time goes is reported per stage
// (voicepath.Timing, from the speech end the bot heard): "closed-p50-ms" (the end of turn
// decided), "recognised", "observation", "sentence" (the first filtered sentence), "frame"
// (its first synthesised audio), "packet" (handed to the bot's track); the reply's p50-ms is
// the last stage, audible at the candidate. cut-offs counts the examiner speaking into a pause.
//
//	go test -run XXX -bench BenchmarkSpokenReplyLatency -benchtime 2x ./cmd/examtui/internal/roomcheck/
func BenchmarkSpokenReplyLatency(b *testing.B) {
	srv := lktest.Start(b)
	script, _ := runtimetest.Rehearsal(b)
	hopts := headless.Options{NewExaminer: hoptsExaminer}
	for _, bc := range []struct {
		name string
		opts []voicepath.Option
	}{
		{"fixed", []voicepath.Option{voicepath.WithEndOfTurn(voicepath.EndFixed, audio.DefaultEndpointConfig())}},
		{"adaptive", nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var lat []float64
			early, failed, cutOffs := 0, 0, 0
			var timings voicepath.Timings
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				res, err := roomcheck.Run(ctx, script, hopts, roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
					RecordDir: b.TempDir(), Spoken: true, VoiceOptions: bc.opts, Timings: timings.Add})
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				cutOffs += res.Voice.CutOffs
				for _, rp := range res.Voice.Replies {
					switch {
					case rp.Error != "":
						failed++
						b.Logf("a reply failed: %s", rp.Error)
					case rp.StartedEarly:
						early++
					default:
						lat = append(lat, rp.LatencyMs)
					}
				}
			}
			for _, s := range voicepath.Stages() {
				b.ReportMetric(headless.Percentile(timings.Of(s), 50), s.Key()+"-p50-ms")
				b.ReportMetric(headless.Percentile(timings.Of(s), 95), s.Key()+"-p95-ms")
			}
			b.ReportMetric(float64(cutOffs), "cut-offs")
			b.ReportMetric(headless.Percentile(lat, 50), "p50-ms")
			b.ReportMetric(headless.Percentile(lat, 95), "p95-ms")
			b.ReportMetric(float64(len(lat)), "replies")
			b.ReportMetric(float64(early), "early")
			b.ReportMetric(float64(failed), "failed")
		})
	}
}

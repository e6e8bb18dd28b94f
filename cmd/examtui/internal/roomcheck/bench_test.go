package roomcheck_test

import (
	"context"
	"slices"
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
// "whisper-scores" is "adaptive" with every line heard at the confidence Whisper typically
// gives a clean answer (whisperTypical) instead of the 1.000 of the room's grammar recogniser:
// the confidence only vetoes a failed recognition, so the figures must match "adaptive".
// "pauses" is "adaptive" over hotel-pauses.yaml, the same answers said with thinking pauses
// after words that cannot end them: its cut-offs must be 0.
//
//	go test -run XXX -bench BenchmarkSpokenReplyLatency -benchtime 2x ./cmd/examtui/internal/roomcheck/
func BenchmarkSpokenReplyLatency(b *testing.B) {
	srv := lktest.Start(b)
	script, _ := runtimetest.Rehearsal(b)
	pauses, _ := runtimetest.Example(b, "hotel-pauses.yaml")
	hopts := headless.Options{NewExaminer: hoptsExaminer}
	for _, bc := range []struct {
		name   string
		opts   []voicepath.Option
		script *headless.Script
	}{
		{"fixed", []voicepath.Option{voicepath.WithEndOfTurn(voicepath.EndFixed, audio.DefaultEndpointConfig())}, script},
		{"adaptive", nil, script},
		{"whisper-scores", nil, heardAt(script, whisperTypical)},
		{"pauses", nil, pauses},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var lat []float64
			early, failed, cutOffs := 0, 0, 0
			var timings voicepath.Timings
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				res, err := roomcheck.Run(ctx, bc.script, hopts, roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
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

// whisperTypical is the confidence of a clean answer as Whisper scores it on the OpenAI wire
// (audio.SegmentConfidence of avg_logprob -0.25 and no_speech_prob 0.02, the OpenAI-compatible
// stand-in's default; docs/voice.md, "Adaptive end of turn", has the published figures): a
// complete answer far above Whisper's failure level, and far below the grammar's 1.000.
var whisperTypical = audio.SegmentConfidence(-0.25, 0.02)

// heardAt returns a copy of script whose said lines are heard with at most confidence c (a
// line that already has a lower one keeps it).
func heardAt(script *headless.Script, c float64) *headless.Script {
	sc := *script
	sc.Turns = slices.Clone(script.Turns)
	for i, t := range sc.Turns {
		if t.Say != nil && (t.Confidence == nil || *t.Confidence > c) {
			sc.Turns[i].Confidence = &c
		}
	}
	return &sc
}

package web_test

import (
	"testing"
	"time"

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
// (voicepath.Timing): closed, recognised, observation, sentence, frame, packet; and the leg from
// the bot's track to the page (downlink: from each reply's first packet sent to the page
// hearing it, on the machine's one clock) with the mean wait in the page's jitter buffer
// (jitter-buffer-ms, from WebRTC's statistics; a second or more means Chromium's playout was not
// running in real time).
func BenchmarkBrowserLatency(b *testing.B) {
	var turns, downlink, jitter []float64
	var stages voicepath.Timings
	for i := 0; b.Loop(); i++ {
		r := newRoom(b)
		p := r.join(b, r.site.link(r.site.code(b, "cand-latency"))+"?measure")
		r.speakAll(b, p)
		// The examiner's closing line follows the last answer.
		p.WaitTrue(`window.examtuiMeasure.turns.length >= 6`, waitExam, "a reply to each of the 6 answers")
		got := browsertest.Eval[[]float64](p, `window.examtuiMeasure.turns`)
		b.Logf("exam %d: %v ms", i+1, got)
		turns = append(turns, got...)
		heard := browsertest.Eval[[][2]float64](p, `window.examtuiMeasure.at`)
		jitter = append(jitter, browsertest.Eval[float64](p, `window.examtuiMeasure.jitter()`))
		r.exam.mu.Lock()
		var sent []time.Time
		for _, tm := range r.exam.timings {
			stages.Add(tm)
			sent = append(sent, tm.At(voicepath.StageFirstPacket))
		}
		r.exam.mu.Unlock()
		downlink = append(downlink, downlinks(heard, sent)...)
		p.Close()
		r.browser.Close()
	}
	if len(turns) < 6 {
		b.Fatalf("%d turns measured, want at least 6 per exam", len(turns))
	}
	for _, s := range voicepath.Stages() {
		b.ReportMetric(headless.Percentile(stages.Of(s), 50), s.Key()+"-p50-ms")
		b.ReportMetric(headless.Percentile(stages.Of(s), 95), s.Key()+"-p95-ms")
	}
	b.ReportMetric(headless.Percentile(downlink, 50), "downlink-p50-ms")
	b.ReportMetric(headless.Percentile(downlink, 95), "downlink-p95-ms")
	b.ReportMetric(headless.Percentile(jitter, 50), "jitter-buffer-ms")
	b.ReportMetric(headless.Percentile(turns, 50), "p50-ms")
	b.ReportMetric(headless.Percentile(turns, 95), "p95-ms")
	b.ReportMetric(float64(len(turns)), "turns")
}

// downlinks is, for each reply the page heard (heard: the candidate's last voiced moment and
// the examiner's first, ms since the epoch), the time from the bot handing that reply's first
// audio to its track (sent: each reply's, on the same machine's clock) to the page hearing it:
// Opus, the server, WebRTC's jitter buffer and the page's analyser. A reply with no first
// packet of its own in that time (the bot's timings follow only the first line of a reply to a
// spoken turn) is left out.
func downlinks(heard [][2]float64, sent []time.Time) []float64 {
	var out []float64
	for _, h := range heard {
		var last time.Time
		for _, at := range sent {
			// That reply's: sent after the candidate's answer ended, before the page heard it.
			if ms := float64(at.UnixMicro()) / 1000; !at.IsZero() && ms >= h[0] && ms <= h[1] && at.After(last) {
				last = at
			}
		}
		if !last.IsZero() {
			out = append(out, h[1]-float64(last.UnixMicro())/1000)
		}
	}
	return out
}

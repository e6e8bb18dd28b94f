package headless_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/headless"
)

// voiceResult is a room run's result as the harness fills it: a native interrupt, clips on
// both sides, a first-chunk timeout with its transport cause, and a failing events writer.
func voiceResult() *headless.Result {
	return &headless.Result{Script: "room.yaml", Spec: "hotel-breakfast.yaml", Examiner: "offline", State: "in_progress", TurnsRun: 3,
		Voice: &headless.VoiceReport{Mode: "typed", TailSilenceMs: 600, MaxReplyMs: 30000, FirstChunkMs: 5000,
			Transport: "livekit", NativeInterrupt: true, Interruption: headless.InterruptNative,
			CandidateWAV: "rec/candidate.wav", ExaminerWAV: "rec/examiner.wav", EventsWritten: 0, EventsFailed: 17,
			Opening: &headless.ReplyTiming{Kind: "opening", LatencyMs: 412, AudioMs: 9310,
				Examiner: &headless.Clip{WAV: "rec/replies/opening-examiner.wav", StartMs: 358, EndMs: 9668, Transcript: "Welcome. This is a practice oral assessment."}},
			Replies: []headless.ReplyTiming{
				{Step: 1, Kind: "say", Said: "Hello, I'm Priya.", LatencyMs: 380, AudioMs: 2500,
					Candidate: &headless.Clip{StartMs: 10011, EndMs: 10013, Transcript: "Hello, I'm Priya."},
					Examiner:  &headless.Clip{WAV: "rec/replies/step-01-examiner.wav", StartMs: 10393, EndMs: 12893, Transcript: "What would you do?"}},
				{Step: 2, Kind: "interrupt", Said: "A second buffet line.", LatencyMs: 350, AudioMs: 2578,
					BargeIn:   &headless.BargeIn{StoppedAfterMs: 57, Stopped: true, LimitMs: 300, Method: headless.InterruptNative},
					Candidate: &headless.Clip{StartMs: 21320, EndMs: 21322, Transcript: "A second buffet line."},
					Examiner:  &headless.Clip{WAV: "rec/replies/step-02-examiner.wav", StartMs: 21672, EndMs: 24250, Transcript: "Who are the guests?"}},
				{Step: 3, Kind: "say", Said: "Business travellers.", Error: "first-chunk timeout: the examiner did not send its first audio within 5s (phase=first-chunk); cause: room transport failed: the candidate's connection has been down for 5s (phase=transport)",
					Timeout:   &headless.ReplyTimeout{Phase: headless.PhaseFirstChunk, AfterMs: 5000, Cause: "room transport failed: the candidate's connection has been down for 5s (phase=transport)"},
					Candidate: &headless.Clip{StartMs: 25000, EndMs: 25002, Transcript: "Business travellers."}},
			}}}
}

// TestVoiceReportText renders a room run's voice report: the capability line, each side's
// clip under its reply, the timeout's cause, and the events writer's failures.
func TestVoiceReportText(t *testing.T) {
	var b strings.Builder
	if err := headless.WriteText(&b, voiceResult()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/golden/voice-report.txt", []byte(b.String()))
	var j strings.Builder
	if err := headless.WriteJSON(&j, []*headless.Result{voiceResult()}); err != nil {
		t.Fatal(err)
	}
	var back []headless.Result
	if err := json.Unmarshal([]byte(j.String()), &back); err != nil {
		t.Fatal(err)
	}
	v := back[0].Voice
	if v.Transport != "livekit" || !v.NativeInterrupt || v.Replies[0].Examiner.WAV != "rec/replies/step-01-examiner.wav" ||
		v.Replies[2].Timeout.Cause == "" || v.Replies[1].BargeIn.Method != headless.InterruptNative || v.EventsFailed != 17 {
		t.Errorf("JSON round trip lost fields: %s", j.String())
	}
}

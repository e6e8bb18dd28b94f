package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/runtime"
)

// TestNotAssessedShown: words the examiner did not observe are marked, with their reason, in
// the transcript (after the candidate's line) and in the Debug view (its own line when the turn
// had no observation; on the turn's observation when it had one).
func TestNotAssessedShown(t *testing.T) {
	m, err := New(hotelInfo, &fakeBackend{}, WithNoColor(true), WithEventClock(), WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var seq int64
	ev := func(p runtime.Payload) runtime.Event {
		seq++
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.Event{Event: p.EventType(), SessionID: "s", Seq: seq, Timestamp: at.Add(time.Duration(seq) * time.Second), Payload: b}
	}
	m.Apply(
		ev(&runtime.TranscriptSegmentPayload{SegmentID: "seg-0003", NodeID: "n", Speaker: runtime.SpeakerCandidate, Text: "Okay, I'm ready.", IsFinal: true, Source: runtime.SourceTyped}),
		ev(&runtime.RecoveryPayload{Kind: runtime.RecoveryNotAssessed, NodeID: "n", SegmentID: "seg-0003", Turn: 3, Reason: runtime.NotAssessedReturnFromPause, Detail: "the candidate came back from the pause"}),
		ev(&runtime.ObservationPayload{NodeID: "n", Turn: 4, Examiner: "llm", Valid: false, Decision: runtime.Decision{Action: runtime.DecisionContinue, Reason: "fallback"}}),
		ev(&runtime.RecoveryPayload{Kind: runtime.RecoveryNotAssessed, NodeID: "n", SegmentID: "seg-0005", Turn: 4, Reason: runtime.NotAssessedExaminerFailed, Detail: "examiner llm: timeout"}),
		// A backchannel held over the examiner's line: overheard, no turn.
		ev(&runtime.TranscriptSegmentPayload{SegmentID: "seg-0007", NodeID: "n", Speaker: runtime.SpeakerCandidate, Text: "Mm-hmm.", IsFinal: true, Source: runtime.SourceMic, Overheard: true}),
		ev(&runtime.RecoveryPayload{Kind: runtime.RecoveryNotAssessed, NodeID: "n", SegmentID: "seg-0007", Turn: 5, Reason: runtime.NotAssessedBackchannel, Detail: "a backchannel held over the examiner's line: the line went on"}),
	)
	tr := strings.Join(viewAt(m.panes[PaneTranscript], 100, 30), "\n")
	for _, want := range []string{"not assessed (return_from_pause): the candidate came back from the pause", "Mm-hmm.",
		"not assessed (backchannel): a backchannel held over the examiner's line: the line went on"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript without %q:\n%s", want, tr)
		}
	}
	dbg := ansi.Strip(strings.Join(viewAt(m.panes[PaneDebug], 100, 40), "\n"))
	for _, want := range []string{"turn 3 not assessed: return_from_pause", "not assessed: examiner_failed: examiner llm: timeout",
		"turn 5 not assessed: backchannel"} {
		if !strings.Contains(dbg, want) {
			t.Errorf("Debug view without %q:\n%s", want, dbg)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestPresencePrinted: the lines `watch --plain` and `run --room --headless` print for presence
// changes and pauses (golden file; -update rewrites it).
func TestPresencePrinted(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	payloads := []runtime.Payload{
		&runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "candidate-1", Present: 1},
		&runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "candidate-1", Reason: "connection lost", NodeID: "welcome"},
		&runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "candidate left",
			By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateLeft}},
		&runtime.CandidatePresencePayload{Status: runtime.PresenceRejoined, Identity: "candidate-1", NodeID: "welcome", AwayMs: 42000, Present: 1},
		&runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused, Reason: "candidate rejoined",
			By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateRejoined}},
		&runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "paused by examiner-ana",
			By: &runtime.Actor{Kind: runtime.ActorExaminer, Identity: "examiner-ana"}},
		&runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused, Reason: "candidate returned",
			By: &runtime.Actor{Kind: runtime.ActorCandidate}},
		// As stored before exam_state said who.
		&runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "paused by examiner"},
		&runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "cand\x1b]0;evil\x07\u202e", Reason: "gone\r\nfake"},
	}
	var got bytes.Buffer
	got.WriteString("# watch --plain\n")
	var headless []byte
	for i, p := range payloads {
		ev, err := runtime.NewEvent("s1", int64(i+1), at.Add(time.Duration(i)*time.Second), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := printEvent(&got, ev, false); err != nil {
			t.Fatal(err)
		}
		if headless, err = formatEvent(headless, ev, false); err != nil {
			t.Fatal(err)
		}
	}
	got.WriteString("# run --room --headless\n")
	got.Write(headless)
	out := regexp.MustCompile(`\d\d:\d\d:\d\d(\.\d\d\d)?`).ReplaceAll(got.Bytes(), []byte("hh:mm:ss"))
	path := filepath.Join("testdata", "presence-printed.golden")
	if updating() {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("printed lines differ from %s (run with -update after checking):\n%s", path, out)
	}
}

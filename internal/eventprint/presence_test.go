package eventprint_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/eventprint"
	"github.com/examtui/examtui/runtime"
)

// TestPresencePrinted: the lines printed for candidate presence changes and for pauses that
// say who paused, including pauses stored before exam_state said who, and hostile identities.
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
	var b []byte
	for i, p := range payloads {
		ev, err := runtime.NewEvent("s1", int64(i+1), at.Add(time.Duration(i)*time.Second), p)
		if err != nil {
			t.Fatal(err)
		}
		if b, err = eventprint.Append(b, ev, false); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "presence.golden", regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d`).ReplaceAll(b, []byte("hh:mm:ss.mmm")))
}

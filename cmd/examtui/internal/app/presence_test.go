package app

import (
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

func TestPresenceSummary(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		p    runtime.Payload
		want string
	}{
		{&runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "cand-1", Present: 1}, "candidate cand-1 joined"},
		{&runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "cand-1", Reason: "left the room"}, "candidate cand-1 left (left the room)"},
		{&runtime.CandidatePresencePayload{Status: runtime.PresenceRejoined, Identity: "cand-1", AwayMs: 61500, Present: 1}, "candidate cand-1 rejoined after 1m2s"},
		{&runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress,
			By: &runtime.Actor{Kind: runtime.ActorExaminer, Identity: "examiner-ana"}}, "paused by examiner-ana"},
		{&runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress,
			By: &runtime.Actor{Kind: runtime.ActorCandidate}}, "paused by the candidate"},
		{&runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress,
			By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateLeft}}, "paused: candidate left"},
		{&runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady}, ""},
		{&runtime.SpokenPayload{Text: "paused by nobody"}, ""},
		// Identities come from tokens: whatever they hold reaches a terminal cleaned.
		{&runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "cand\x1b[2J\u202eX"}, "candidate cand[2JX joined"},
	}
	for i, tc := range tests {
		ev, err := runtime.NewEvent("s", int64(i+1), at, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := PresenceSummary(ev); got != tc.want {
			t.Errorf("%s %s: %q, want %q", ev.Event, ev.Payload, got, tc.want)
		}
	}
	broken := runtime.Event{Event: runtime.EventCandidatePresence, Seq: 1, Payload: []byte(`{"status":`)}
	if got := PresenceSummary(broken); got != "" {
		t.Errorf("undecodable event: %q", got)
	}
}

// FuzzPresenceSummary: identities, reasons and examiner names come from tokens and the network;
// whatever they hold, the summary is one line with no control or bidi characters.
func FuzzPresenceSummary(f *testing.F) {
	f.Add("candidate-1", "connection lost", "examiner-ana", uint8(0))
	f.Add("cand\x1b[2J", "gone\r\nfake line", "ana\x1b]52;c;aGk=\x07", uint8(1))
	f.Add("\u202eevil", "\x00\u2066", "\u200f", uint8(2))
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, identity, reason, examiner string, which uint8) {
		payloads := []runtime.Payload{
			&runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: identity, Reason: reason},
			&runtime.CandidatePresencePayload{Status: runtime.PresenceStatus(reason), Identity: identity, AwayMs: int64(which) * 1000},
			&runtime.ExamStatePayload{State: runtime.StatePaused, By: &runtime.Actor{Kind: runtime.ActorExaminer, Identity: examiner}},
			&runtime.ExamStatePayload{State: runtime.StatePaused, By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: reason}},
		}
		ev, err := runtime.NewEvent("s", 1, at, payloads[int(which)%len(payloads)])
		if err != nil {
			t.Fatal(err)
		}
		s := PresenceSummary(ev)
		for _, r := range s {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("summary %q carries %U", s, r)
			}
		}
	})
}

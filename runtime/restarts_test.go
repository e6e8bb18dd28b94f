package runtime_test

import (
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestRestartsGap: the downtime a resumed process left off the clocks is found once, at its
// first event, whether that is its resume line or what it recorded before it.
func TestRestartsGap(t *testing.T) {
	var (
		said     = &runtime.SpokenPayload{Source: runtime.SpokenExaminer, Text: "Go on."}
		resume   = &runtime.SpokenPayload{Source: runtime.SpokenResume, Text: "Where were we?"}
		unheard  = &runtime.RecoveryPayload{Kind: runtime.RecoveryNotAssessed, Reason: runtime.NotAssessedRestarted}
		backchan = &runtime.RecoveryPayload{Kind: runtime.RecoveryNotAssessed, Reason: runtime.NotAssessedBackchannel}
		settle   = &runtime.AdminInstructionPayload{Mode: runtime.AdminQueued, Status: runtime.AdminConsumed, AfterRestart: true}
		consumed = &runtime.AdminInstructionPayload{Mode: runtime.AdminQueued, Status: runtime.AdminConsumed}
	)
	type step struct {
		at  time.Duration
		p   runtime.Payload
		gap time.Duration
	}
	for _, tc := range []struct {
		name  string
		state runtime.ExamState
		steps []step
	}{
		{"resume line", runtime.StateInProgress, []step{{0, said, 0}, {time.Hour, resume, time.Hour}, {time.Hour + time.Second, said, 0}}},
		{"turn not assessed first", runtime.StateInProgress, []step{{0, said, 0}, {time.Hour, unheard, time.Hour}, {time.Hour + time.Millisecond, settle, 0},
			{time.Hour + 2*time.Millisecond, resume, 0}}},
		{"settle first", runtime.StateInProgress, []step{{0, said, 0}, {time.Hour, settle, time.Hour}, {time.Hour + time.Millisecond, resume, 0}}},
		{"two restarts", runtime.StateInProgress, []step{{0, said, 0}, {time.Hour, unheard, time.Hour}, {time.Hour + time.Millisecond, resume, 0},
			{3 * time.Hour, resume, 2*time.Hour - time.Millisecond}}},
		{"live events are no restart", runtime.StateInProgress, []step{{0, said, 0}, {time.Minute, consumed, 0}, {2 * time.Minute, backchan, 0}, {3 * time.Minute, said, 0}}},
		{"not in progress", runtime.StatePaused, []step{{0, said, 0}, {time.Hour, resume, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r runtime.Restarts
			for i, s := range tc.steps {
				ev := runtime.Event{Seq: int64(i + 1), Timestamp: t0.Add(s.at)}
				if got := r.Gap(ev, s.p, tc.state); got != s.gap {
					t.Errorf("event %d (%T at %v): gap %v, want %v", i+1, s.p, s.at, got, s.gap)
				}
			}
		})
	}
}

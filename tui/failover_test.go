package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestExaminerSwitchedShown: the failover is a notice in the footer, a line in the transcript,
// and the status bar names the examiner now running the exam.
func TestExaminerSwitchedShown(t *testing.T) {
	tests := []struct {
		name string
		p    *runtime.ExaminerSwitchedPayload
		want []string
	}{
		{"offline takes over", &runtime.ExaminerSwitchedPayload{From: "gpt-4o-mini", To: "offline", Failures: 3, Policy: "offline", NodeID: "n1"},
			[]string{"examiner gpt-4o-mini failed 3 turns in a row: the offline examiner runs the rest of the exam", "offline (fallback from gpt-4o-mini)"}},
		{"exam ended", &runtime.ExaminerSwitchedPayload{From: "gpt-4o-mini", Failures: 3, Policy: "interrupt", NodeID: "n1"},
			[]string{"examiner gpt-4o-mini failed 3 turns in a row: exam ended (interrupt policy)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder(t, "s-1", fixtureStart)
			r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: []string{"n1"}})
			r.at(0, &runtime.NodeEnteredPayload{NodeID: "n1", Kind: "assessment", TimeBudgetSec: 60,
				Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 1}})
			r.at(time.Second, tt.p)
			m, err := New(Info{Title: "T", Examiner: "gpt-4o-mini"}, &fakeBackend{}, WithNoColor(true), WithEventClock(), WithTickInterval(0))
			if err != nil {
				t.Fatal(err)
			}
			m.Apply(r.events...)
			m.Update(windowSize(200, 50))
			plain := Plain(m.Render())
			for _, want := range tt.want {
				if !strings.Contains(plain, want) {
					t.Errorf("frame lacks %q:\n%s", want, plain)
				}
			}
		})
	}
}

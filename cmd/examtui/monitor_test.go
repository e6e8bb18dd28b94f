package main

import (
	"testing"
	"time"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/monitor"
)

func TestMonitorThresholds(t *testing.T) {
	tests := []struct {
		name    string
		in      config.Monitor
		want    monitor.Thresholds
		wantErr bool
	}{
		{"empty takes defaults later", config.Monitor{}, monitor.Thresholds{}, false},
		{"all set", config.Monitor{SilentAfter: "90s", StalledAfter: "4m", LowConfidence: 2, ExaminerErrors: 3, OverBudgetGrace: "30s"},
			monitor.Thresholds{Silent: 90 * time.Second, Stalled: 4 * time.Minute, LowConfidence: 2, ExaminerErrors: 3, OverBudgetGrace: 30 * time.Second}, false},
		{"not a duration", config.Monitor{SilentAfter: "soon"}, monitor.Thresholds{}, true},
		{"negative duration", config.Monitor{StalledAfter: "-1m"}, monitor.Thresholds{}, true},
		{"negative count", config.Monitor{LowConfidence: -1}, monitor.Thresholds{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := monitorThresholds(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

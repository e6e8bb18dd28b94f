package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime/usage"
)

func TestMonitorThresholds(t *testing.T) {
	price := 0.15
	tests := []struct {
		name    string
		in      config.File
		want    monitor.Thresholds
		wantErr bool
	}{
		{"empty takes defaults later", config.File{Monitor: config.Monitor{}}, monitor.Thresholds{}, false},
		{"all set", config.File{Monitor: config.Monitor{SilentAfter: "90s", StalledAfter: "4m", LowConfidence: 2, ExaminerErrors: 3, OverBudgetGrace: "30s", NotStartedAfter: "45s"}},
			monitor.Thresholds{Silent: 90 * time.Second, Stalled: 4 * time.Minute, LowConfidence: 2, ExaminerErrors: 3, OverBudgetGrace: 30 * time.Second,
				NotStarted: 45 * time.Second}, false},
		{"not a duration", config.File{Monitor: config.Monitor{SilentAfter: "soon"}}, monitor.Thresholds{}, true},
		{"negative duration", config.File{Monitor: config.Monitor{StalledAfter: "-1m"}}, monitor.Thresholds{}, true},
		{"prices and budget", config.File{Prices: usage.Prices{"gpt-4o-mini": {PromptPerMTok: &price}}, Budget: config.Budget{CostPerExam: 0.5}},
			monitor.Thresholds{Prices: usage.Prices{"gpt-4o-mini": {PromptPerMTok: &price}}, CostPerExam: 0.5}, false},
		{"negative count", config.File{Monitor: config.Monitor{LowConfidence: -1}}, monitor.Thresholds{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := monitorThresholds(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

package app

import (
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestRehearsalGates: BOT_* variables override the spec's gates in rehearsal runs only; a room
// exam keeps the spec's values; a malformed value is an error.
func TestRehearsalGates(t *testing.T) {
	tests := []struct {
		name, value      string
		input            runtime.InputSource
		wantOpt, wantErr bool
	}{
		{"unset", "", runtime.SourceTyped, false, false},
		{"typed rehearsal", "0.5", runtime.SourceTyped, true, false},
		{"mic rehearsal", "0.5", runtime.SourceMic, true, false},
		{"room exam: the spec wins", "0.5", runtime.SourceRoom, false, false},
		{"malformed", "half a second", runtime.SourceTyped, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BOT_SPEAK_GATE_DELAY_SECS", tt.value)
			opt, err := rehearsalGates(tt.input, nil)
			if (err != nil) != tt.wantErr || (opt != nil) != tt.wantOpt {
				t.Fatalf("option %v, err %v", opt != nil, err)
			}
		})
	}
}

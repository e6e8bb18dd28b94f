package livekit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/runtime"
)

func TestParseCommandLine(t *testing.T) {
	cases := []struct {
		in      string
		want    livekit.ExaminerCommand
		wantErr bool
	}{
		{"pause", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlPause}, false},
		{"/resume", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlResume}, false},
		{"  SKIP ", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlSkip}, false},
		{"advance", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlAdvance}, false},
		{"/end", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlEnd}, false},
		{"now Ask about the budget.", livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminImmediate, Text: "Ask about the budget."}, false},
		{"/queue   Slow down a little. ", livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminQueued, Text: "Slow down a little."}, false},
		{"", livekit.ExaminerCommand{}, true},
		{"/", livekit.ExaminerCommand{}, true},
		{"now", livekit.ExaminerCommand{}, true},
		{"queue    ", livekit.ExaminerCommand{}, true},
		{"pause now", livekit.ExaminerCommand{}, true},
		{"explode", livekit.ExaminerCommand{}, true},
		{"now " + strings.Repeat("x", livekit.MaxAdminTextLen+1), livekit.ExaminerCommand{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := livekit.ParseCommandLine(tc.in)
			if tc.wantErr {
				if !errors.Is(err, livekit.ErrInvalidMessage) {
					t.Fatalf("err = %v, want ErrInvalidMessage", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func FuzzParseCommandLine(f *testing.F) {
	for _, s := range []string{"pause", "now hello", "/queue x", "", "end now", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmd, err := livekit.ParseCommandLine(line)
		if err != nil {
			if !errors.Is(err, livekit.ErrInvalidMessage) {
				t.Fatalf("error not ErrInvalidMessage: %v", err)
			}
			return
		}
		// What the console accepts must survive the wire.
		var data []byte
		switch cmd.Kind {
		case livekit.CommandAdmin:
			data, err = livekit.EncodeAdminInstruction(cmd.Mode, cmd.Text)
		case livekit.CommandControl:
			data, err = livekit.EncodeControl(cmd.Action)
		default:
			t.Fatalf("kind %v", cmd.Kind)
		}
		if err != nil {
			t.Fatal(err)
		}
		back, err := livekit.ParseExaminerCommand(data)
		if err != nil || back != cmd {
			t.Fatalf("round trip %+v -> %+v, %v", cmd, back, err)
		}
	})
}

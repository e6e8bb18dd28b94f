package app_test

import (
	"errors"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/operator"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestWireCommand: what an examiner types becomes the room's wire message; the table covers
// every command of the grammar.
func TestWireCommand(t *testing.T) {
	cases := []struct {
		line string
		want livekit.ExaminerCommand
	}{
		{"pause", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlPause}},
		{"/resume", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlResume}},
		{"skip", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlSkip}},
		{"advance", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlAdvance}},
		{"END", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlEnd}},
		{"promote", livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlPromote}},
		{"now Ask about the budget.", livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminImmediate, Text: "Ask about the budget."}},
		{"/admin Ask.", livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminImmediate, Text: "Ask."}},
		{"queue Slow down.", livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminQueued, Text: "Slow down."}},
		{"say We have five minutes left.", livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminSay, Text: "We have five minutes left."}},
	}
	for _, tc := range cases {
		c, err := operator.Parse(tc.line, operator.Commands)
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		got, err := app.WireCommand(c)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
	if _, err := app.WireCommand(operator.Command{Kind: operator.KindAnswer, Text: "an answer"}); !errors.Is(err, operator.ErrCommand) {
		t.Errorf("an answer became a wire command: %v", err)
	}
}

// FuzzWireCommand: whatever the grammar accepts from an examiner survives the room's wire.
func FuzzWireCommand(f *testing.F) {
	for _, s := range []string{"pause", "now hello", "/queue x", "say hi", "", "end now", "\x00", "promote", "admin \u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := operator.Parse(line, operator.Commands)
		if err != nil || c.Kind == operator.KindNone {
			return
		}
		cmd, err := app.WireCommand(c)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
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

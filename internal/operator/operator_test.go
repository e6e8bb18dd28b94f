package operator_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/operator"
	"github.com/examtui/examtui/runtime"
)

func TestParse(t *testing.T) {
	ctl := func(a runtime.ControlAction) operator.Command {
		return operator.Command{Kind: operator.KindControl, Action: a}
	}
	admin := func(m runtime.AdminMode, text string) operator.Command {
		return operator.Command{Kind: operator.KindAdmin, Mode: m, Text: text}
	}
	answer := func(text string) operator.Command { return operator.Command{Kind: operator.KindAnswer, Text: text} }
	promote := ctl(runtime.ControlPromote)
	none := operator.Command{Kind: operator.KindNone}
	const (
		A = operator.Answers
		C = operator.Commands
	)
	cases := []struct {
		in      operator.Input
		line    string
		want    operator.Command
		wantErr error
	}{
		// headless stdin: answers, and commands after "/"
		{A, "", none, nil},
		{A, "   \t ", none, nil},
		{A, "We could open a second buffet line.", answer("We could open a second buffet line."), nil},
		{A, "  padded answer  ", answer("padded answer"), nil},
		{A, "pause", answer("pause"), nil},
		{A, "//etc/hosts is a file", answer("/etc/hosts is a file"), nil},
		{A, "/pause", ctl(runtime.ControlPause), nil},
		{A, "/RESUME", ctl(runtime.ControlResume), nil},
		{A, " /skip ", ctl(runtime.ControlSkip), nil},
		{A, "/advance", ctl(runtime.ControlAdvance), nil},
		{A, "/end", ctl(runtime.ControlEnd), nil},
		{A, "/now Ask about costs.", admin(runtime.AdminImmediate, "Ask about costs."), nil},
		{A, "/admin Ask about costs.", admin(runtime.AdminImmediate, "Ask about costs."), nil},
		{A, "/immediate Ask about costs.", admin(runtime.AdminImmediate, "Ask about costs."), nil},
		{A, "/queue   Mention the budget. ", admin(runtime.AdminQueued, "Mention the budget."), nil},
		{A, "/queued Mention the budget.", admin(runtime.AdminQueued, "Mention the budget."), nil},
		{A, "/say  We have five minutes left. ", admin(runtime.AdminSay, "We have five minutes left."), nil},
		{A, "/SAY", operator.Command{}, operator.ErrArgument},
		{A, "/promote", promote, nil},
		{A, "/promote now", operator.Command{}, operator.ErrArgument},
		{A, "/admin", operator.Command{}, operator.ErrArgument},
		{A, "/queue   ", operator.Command{}, operator.ErrArgument},
		{A, "/pause now", operator.Command{}, operator.ErrArgument},
		{A, "/bogus", operator.Command{}, operator.ErrUnknown},
		{A, "/", operator.Command{}, operator.ErrUnknown},
		{A, "/now " + strings.Repeat("x", operator.MaxTextRunes+1), operator.Command{}, operator.ErrArgument},
		// an examiner's stdin: every line a command, "/" optional
		{C, "", none, nil},
		{C, "pause", ctl(runtime.ControlPause), nil},
		{C, "/resume", ctl(runtime.ControlResume), nil},
		{C, "  SKIP ", ctl(runtime.ControlSkip), nil},
		{C, "now Ask about the budget.", admin(runtime.AdminImmediate, "Ask about the budget."), nil},
		{C, "/admin Ask about the budget.", admin(runtime.AdminImmediate, "Ask about the budget."), nil},
		{C, "/queue   Slow down a little. ", admin(runtime.AdminQueued, "Slow down a little."), nil},
		{C, "say Take your time.", admin(runtime.AdminSay, "Take your time."), nil},
		{C, "promote", promote, nil},
		{C, "/", operator.Command{}, operator.ErrUnknown},
		{C, "now", operator.Command{}, operator.ErrArgument},
		{C, "pause now", operator.Command{}, operator.ErrArgument},
		{C, "explode", operator.Command{}, operator.ErrUnknown},
		{C, "We could open a buffet.", operator.Command{}, operator.ErrUnknown},
		{C, "now " + strings.Repeat("é", operator.MaxTextRunes), admin(runtime.AdminImmediate, strings.Repeat("é", operator.MaxTextRunes)), nil},
	}
	for _, tc := range cases {
		got, err := operator.Parse(tc.line, tc.in)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) || !errors.Is(err, operator.ErrCommand) {
				t.Errorf("%v %.40q: err %v, want %v", tc.in, tc.line, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v %.40q: got %+v (err %v), want %+v", tc.in, tc.line, got, err, tc.want)
		}
	}
}

// TestErrorMessages: an error names the command as the operator wrote it.
func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		in   operator.Input
		line string
		want string
	}{
		{operator.Answers, "/bogus", `unknown operator command: "/bogus"`},
		{operator.Commands, "bogus x", `unknown operator command: "bogus"`},
		{operator.Answers, "/PAUSE now", `bad operator command: /pause takes no argument`},
		{operator.Commands, "queue", `bad operator command: queue needs the instruction's text`},
	} {
		_, err := operator.Parse(tc.line, tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.line, err, tc.want)
		}
	}
}

// TestHelpFromGrammar: the help lists every command and alias, and each usage it shows parses
// in both inputs.
func TestHelpFromGrammar(t *testing.T) {
	usage := regexp.MustCompile(`^  (/[a-z]+)( TEXT)?\s`)
	alias := regexp.MustCompile(`/([a-z]+)`)
	for _, in := range []operator.Input{operator.Answers, operator.Commands} {
		help := operator.Help(in)
		lines := strings.Split(help, "\n")[1:]
		seen := 0
		for _, l := range lines {
			m := usage.FindStringSubmatch(l)
			if m == nil {
				if in == operator.Answers && strings.HasPrefix(l, "  //TEXT") {
					continue
				}
				t.Fatalf("help line %q is not a usage line", l)
			}
			seen++
			// the name and every alias in the line parse to the same command
			var first operator.Command
			for i, a := range alias.FindAllStringSubmatch(l, -1) {
				line := "/" + a[1]
				if m[2] != "" {
					line += " some text"
				}
				got, err := operator.Parse(line, in)
				if err != nil {
					t.Errorf("%q from the help does not parse: %v", line, err)
				}
				if i == 0 {
					first = got
				} else if got != first {
					t.Errorf("alias %q means %+v, its command %+v", line, got, first)
				}
			}
		}
		if seen != 9 {
			t.Errorf("help shows %d commands, want 9:\n%s", seen, help)
		}
		for _, want := range []string{"/pause", "/resume", "/skip", "/advance", "/end", "/now TEXT", "/admin", "/queue TEXT", "/say TEXT", "/promote"} {
			if !strings.Contains(help, want) {
				t.Errorf("help lacks %q:\n%s", want, help)
			}
		}
	}
	if !strings.Contains(operator.Help(operator.Answers), "//TEXT") || strings.Contains(operator.Help(operator.Commands), "//TEXT") {
		t.Error("only headless help describes //TEXT")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "answer", "/pause", "/admin x", "/queue  y ", "//x", "/", "/ pause", "/end\x00", "now hi", "promote", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, in := range []operator.Input{operator.Answers, operator.Commands} {
			got, err := operator.Parse(line, in)
			s := strings.TrimSpace(line)
			if err != nil {
				if !errors.Is(err, operator.ErrCommand) {
					t.Fatalf("%q: error %v does not wrap ErrCommand", line, err)
				}
				if in == operator.Answers && !strings.HasPrefix(s, "/") {
					t.Fatalf("%q: an answer line was refused: %v", line, err)
				}
				continue
			}
			switch got.Kind {
			case operator.KindNone:
				if s != "" {
					t.Fatalf("%q: ignored a non-blank line", line)
				}
			case operator.KindAnswer:
				if in != operator.Answers || got.Text == "" || !strings.HasSuffix(s, got.Text) || (strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//")) {
					t.Fatalf("%q: answer %q", line, got.Text)
				}
			case operator.KindControl:
				if _, err := runtime.ParseControlAction(got.Action.String()); err != nil || got.Text != "" {
					t.Fatalf("%q: control %v: %v", line, got.Action, err)
				}
			case operator.KindAdmin:
				if got.Text == "" || got.Text != strings.TrimSpace(got.Text) || (got.Mode != runtime.AdminImmediate && got.Mode != runtime.AdminQueued) {
					t.Fatalf("%q: admin %v %q", line, got.Mode, got.Text)
				}
			default:
				t.Fatalf("%q: kind %v", line, got.Kind)
			}
		}
	})
}

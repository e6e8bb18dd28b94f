package livekit

import (
	"context"
	"fmt"
	"strings"

	"github.com/examtui/examtui/runtime"
)

// CommandSender is what an examiner's console needs to step in: a Client satisfies it.
type CommandSender interface {
	SendAdmin(ctx context.Context, mode runtime.AdminMode, text string) error
	SendControl(ctx context.Context, action runtime.ControlAction) error
}

// CommandLineHelp describes the syntax ParseCommandLine accepts.
const CommandLineHelp = `pause | resume | skip | advance | end
now <instruction>     admin instruction, applied at once (interrupts the examiner)
queue <instruction>   admin instruction, consumed at the next turn
(a leading "/" is allowed)`

// ParseCommandLine parses one line an examiner typed into a command.
func ParseCommandLine(line string) (ExaminerCommand, error) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "/"))
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "now", "immediate":
		return adminLine(runtime.AdminImmediate, rest)
	case "queue", "queued":
		return adminLine(runtime.AdminQueued, rest)
	case "":
		return ExaminerCommand{}, fmt.Errorf("%w: empty command", ErrInvalidMessage)
	}
	action, err := runtime.ParseControlAction(strings.ToLower(word))
	if err != nil {
		return ExaminerCommand{}, fmt.Errorf("%w: unknown command %q", ErrInvalidMessage, word)
	}
	if rest != "" {
		return ExaminerCommand{}, fmt.Errorf("%w: %s takes no argument", ErrInvalidMessage, action)
	}
	return ExaminerCommand{Kind: CommandControl, Action: action}, nil
}

func adminLine(mode runtime.AdminMode, text string) (ExaminerCommand, error) {
	t, err := checkText("instruction", &text, MaxAdminTextLen)
	if err != nil {
		return ExaminerCommand{}, err
	}
	return ExaminerCommand{Kind: CommandAdmin, Mode: mode, Text: t}, nil
}

// Send sends the command through s.
func (c ExaminerCommand) Send(ctx context.Context, s CommandSender) error {
	switch c.Kind {
	case CommandAdmin:
		return s.SendAdmin(ctx, c.Mode, c.Text)
	case CommandControl:
		return s.SendControl(ctx, c.Action)
	}
	return fmt.Errorf("%w: command kind %v", ErrInvalidMessage, c.Kind)
}

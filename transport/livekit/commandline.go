package livekit

import (
	"context"
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// CommandSender is what an examiner's console needs to step in: a Client satisfies it.
type CommandSender interface {
	SendAdmin(ctx context.Context, mode runtime.AdminMode, text string) error
	SendControl(ctx context.Context, action runtime.ControlAction) error
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

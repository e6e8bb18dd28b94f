package app

import (
	"context"
	"errors"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// CommandPollInterval is how often a running exam looks for examiner commands sent through
// the session store (examtui monitor's control channel for exams outside a LiveKit room).
const CommandPollInterval = 250 * time.Millisecond

// consumeCommands applies the commands queued for this session in the store, in order, until
// ctx ends. Each goes through the controller like a local control, with the sender the
// command names, so it is recorded as an admin_instruction event saying who sent it. A
// command the controller refuses (pause while paused) is logged and dropped.
func (x *Exam) consumeCommands(ctx context.Context) {
	Every(ctx, CommandPollInterval, func() bool {
		cmds, err := x.Store.TakeCommands(ctx, x.SessionID)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, sessions.ErrStoreClosed) {
				x.log.Warn("poll examiner commands", "err", err)
			}
			return true
		}
		for _, c := range cmds {
			if err := x.applyCommand(ctx, c); err != nil {
				x.log.Warn("examiner command refused", "seq", c.Seq, "kind", c.Kind, "action", c.Action,
					"sender", c.Sender, "err", err)
				continue
			}
			x.log.Info("examiner command applied", "seq", c.Seq, "kind", c.Kind, "action", c.Action, "sender", c.Sender)
		}
		return true
	})
}

func (x *Exam) applyCommand(ctx context.Context, c sessions.Command) error {
	switch c.Kind {
	case sessions.CommandControl:
		a, err := runtime.ParseControlAction(c.Action)
		if err != nil {
			return err
		}
		return x.Controller.Control(ctx, a, c.Sender)
	case sessions.CommandAdmin:
		return x.Controller.Admin(ctx, runtime.AdminInstruction{Mode: runtime.AdminMode(c.Action), Text: c.Text, Sender: c.Sender})
	}
	return sessions.ErrInvalidCommand
}

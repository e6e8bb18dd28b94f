package app

import (
	"context"
	"fmt"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// StoreBackend controls an exam through the store's command channel (`examtui monitor`): the
// process running the exam takes the commands and applies them as from sender.
func StoreBackend(ctx context.Context, store *sessions.Store, id, sender string) tui.Backend {
	send := func(c sessions.Command) error {
		cctx, cancel := context.WithTimeout(ctx, BackendTimeout)
		defer cancel()
		c.SessionID, c.Sender = id, sender
		_, err := store.SendCommand(cctx, c)
		return err
	}
	return tui.BackendFuncs{
		ControlFunc: func(action runtime.ControlAction) error {
			if !action.Valid() {
				return fmt.Errorf("%w: %v", runtime.ErrInvalidControl, action)
			}
			return send(sessions.Command{Kind: sessions.CommandControl, Action: action.String()})
		},
		AdminFunc: func(mode runtime.AdminMode, text string) error {
			return send(sessions.Command{Kind: sessions.CommandAdmin, Action: mode.String(), Text: text})
		},
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/monitor"
)

// monitorJSON prints one line per alert as it is raised, until ctx ends.
func monitorJSON(ctx context.Context, board *monitor.Board, updates <-chan monitor.Update, rooms <-chan app.RoomMsg, w io.Writer) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	enc := json.NewEncoder(w)
	emit := func(alerts []monitor.Alert) error {
		for _, a := range alerts {
			if err := enc.Encode(a); err != nil {
				return fmt.Errorf("write alert: %w", err)
			}
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			if err := emit(board.Tick(now)); err != nil {
				return err
			}
		case u, ok := <-updates:
			if !ok {
				return nil
			}
			if err := emit(board.ApplyUpdate(u)); err != nil {
				return err
			}
		case rm := <-rooms:
			if rm.Scanned {
				board.SetWaiting(rm.Waiting)
				continue
			}
			if rm.Session != "" {
				board.SetRoom(rm.Session, rm.Room)
				continue
			}
			if err := emit(board.ApplyUpdate(rm.Update)); err != nil {
				return err
			}
		}
	}
}

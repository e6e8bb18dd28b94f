package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/runtime/headless"
)

// testRoomOptions is `examtui test --room-url URL`: the exam bot and a simulated candidate
// participant meet in a real LiveKit room.
type testRoomOptions struct {
	url string
}

func (r *testRoomOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.url, "room-url", "", "run each script through a LiveKit server at this URL")
}

func (r testRoomOptions) enabled() bool { return r.url != "" }

// run plays one script through a real room.
func (r testRoomOptions) run(ctx context.Context, s *headless.Script, opts headless.Options, log *slog.Logger) (*headless.Result, error) {
	return nil, errors.New("--room-url is not wired yet")
}

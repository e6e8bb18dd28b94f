package worker

import (
	"context"
	"log/slog"

	"github.com/examtui/examtui/sessions"
)

// openStore opens the session store every worker of a pool shares. It is the one place the
// worker opens a store (app.Open opens each exam's own handle from the same directory).
func openStore(ctx context.Context, dataDir string, log *slog.Logger) (*sessions.Store, error) {
	return sessions.Open(ctx, dataDir, sessions.WithLogger(log))
}

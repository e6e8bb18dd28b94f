package worker

import (
	"context"
	"log/slog"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/sessions"
)

// openStore opens the session store every worker of a pool shares: a data directory, or a
// postgres:// URL for workers on several machines. It is the one place the worker opens a
// store: every exam of the worker uses it (app.Options.SharedStore), so that their journals'
// commits are grouped into one transaction and one fsync (sessions' group committer).
func openStore(ctx context.Context, target string, log *slog.Logger) (*sessions.Store, error) {
	return app.OpenStore(ctx, target, log)
}

package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/examtui/examtui/sessions"
)

// StoreTarget resolves which session store a command opens: the --store flag, else
// $EXAMTUI_STORE (the config file's store: arrives there too, the environment winning), else
// SQLite in the data directory. Every command that opens the store resolves it here.
func StoreTarget(flagValue, dataDir string) string {
	if v := strings.TrimSpace(flagValue); v != "" {
		return v
	}
	if v := strings.TrimSpace(os.Getenv(sessions.EnvStore)); v != "" {
		return v
	}
	return dataDir
}

// OpenStore opens the store target names (a data directory or a postgres:// URL, see
// sessions.OpenURL) with the command's logger. Errors name the store with its password masked.
func OpenStore(ctx context.Context, target string, log *slog.Logger, opts ...sessions.Option) (*sessions.Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st, err := sessions.OpenURL(ctx, target, append([]sessions.Option{sessions.WithLogger(log)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("open session store: %w", err)
	}
	log.Info("session store open", "store", st.Target(), "engine", st.Engine().String())
	return st, nil
}

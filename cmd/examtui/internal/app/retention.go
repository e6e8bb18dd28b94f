package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/examtui/examtui/sessions"
)

// PurgeInterval is how often the long-running commands (worker, serve, monitor) apply the
// retention policy: once at start, then once a day.
const PurgeInterval = 24 * time.Hour

// PurgeDaily applies the retention policy to the store at target now and then every interval
// until ctx ends, each time on a store of its own (the command's store stays as it is). What
// went is logged (by the store) and in the access log; a failed purge is logged and tried
// again at the next turn. An empty policy does nothing.
func PurgeDaily(ctx context.Context, target string, req sessions.PurgeRequest, interval time.Duration, log *slog.Logger) {
	if req.Policy.Empty() {
		log.Debug("retention: no policy configured, nothing is purged")
		return
	}
	purge := func() bool {
		st, err := OpenStore(ctx, target, log, sessions.WithRecovery(false))
		if err != nil {
			log.Warn("retention: open the store", "err", err)
			return true
		}
		defer st.Close()
		got, err := st.Purge(ctx, req)
		if err != nil {
			log.Warn("retention: purge", "err", err)
			return true
		}
		if got.Empty() {
			log.Info("retention: nothing to purge")
		}
		return true
	}
	purge()
	Every(ctx, interval, purge)
}

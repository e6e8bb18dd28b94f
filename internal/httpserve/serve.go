// Package httpserve runs an http.Server until its context ends, the one way examtui's servers
// (examtui controller, examtui serve) stop: requests in flight get a grace period, then the
// server closes.
package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve answers on ln with hs until ctx ends or the server fails. When ctx ends it lets requests
// in flight finish for at most grace (the caller's context is already done, so the grace has its
// own deadline). A clean shutdown returns nil.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		err = hs.Shutdown(sctx)
		cancel()
		<-errc
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

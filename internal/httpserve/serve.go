// Package httpserve runs an http.Server until its context ends, the one way examtui's servers
// (examtui controller, examtui serve and its health endpoint) run and stop, and the one place
// their bounds live: read-header, read, write and idle timeouts, a cap on header and body sizes,
// and a cap on concurrent connections per server and per client address (limits.go). When its
// context ends, requests in flight get a grace period, then the server closes.
package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve answers on ln with hs until ctx ends or the server fails, within the limits (Defaults
// changed by opts): hs's zero timeouts and header cap are set, its handler caps request bodies,
// and ln admits connections within the caps. When ctx ends it lets requests in flight finish for
// at most grace (the caller's context is already done, so the grace has its own deadline). A
// clean shutdown returns nil.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration, opts ...Option) error {
	lim := Defaults
	for _, o := range opts {
		if err := o(&lim); err != nil {
			return err
		}
	}
	ln = lim.apply(hs, ln)
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

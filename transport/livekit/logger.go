package livekit

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	protoLogger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// sdkLogger routes the LiveKit SDK's logging into slog, so nothing reaches stdout or stderr
// while the console owns the terminal. The SDK is chatty at info level; its records are demoted
// by one level so that our own info lines stay readable.
func sdkLogger(l *slog.Logger) protoLogger.Logger {
	return protoLogger.LogRLogger(logr.FromSlogHandler(l.With("component", "livekit-sdk").Handler()).V(1))
}

var (
	sdkLoggerOnce sync.Once
	sdkLoggerSet  atomic.Bool
	// sdkHandler is where the SDK's process-wide records go. The SDK reads its global logger
	// without synchronisation whenever a room is created, so it is installed once, pointing
	// here, and only this pointer changes afterwards.
	sdkHandler atomic.Pointer[slog.Handler]
)

func installSDKLogger() {
	sdkLoggerOnce.Do(func() { lksdk.SetLogger(sdkLogger(slog.New(swapHandler{}))) })
}

// SetSDKLogger routes the SDK's process-wide logging (WebRTC internals, which the SDK does not
// log per room) to l. Join and Dial use their own logger if nothing has been set yet, because
// the SDK's default writes to stderr. It is safe to call at any time.
func SetSDKLogger(l *slog.Logger) {
	h := l.Handler()
	sdkHandler.Store(&h)
	sdkLoggerSet.Store(true)
	installSDKLogger()
}

func defaultSDKLogger(l *slog.Logger) {
	if sdkLoggerSet.CompareAndSwap(false, true) {
		h := l.Handler()
		sdkHandler.Store(&h)
	}
	installSDKLogger()
}

// swapHandler forwards to the current sdkHandler, replaying the attributes and groups the SDK
// added on top of it.
type swapHandler struct {
	ops []func(slog.Handler) slog.Handler
}

func (h swapHandler) current() slog.Handler {
	var base slog.Handler = slog.DiscardHandler
	if p := sdkHandler.Load(); p != nil {
		base = *p
	}
	for _, op := range h.ops {
		base = op(base)
	}
	return base
}

func (h swapHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.current().Enabled(ctx, l)
}

func (h swapHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.current().Handle(ctx, r)
}

func (h swapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return swapHandler{ops: append(slices.Clone(h.ops), func(x slog.Handler) slog.Handler { return x.WithAttrs(attrs) })}
}

func (h swapHandler) WithGroup(name string) slog.Handler {
	return swapHandler{ops: append(slices.Clone(h.ops), func(x slog.Handler) slog.Handler { return x.WithGroup(name) })}
}

package livekit

import (
	"log/slog"
	"sync"

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

var sdkLoggerOnce sync.Once

// SetSDKLogger routes the SDK's process-wide logging (WebRTC internals, which the SDK does not
// log per room) to l. Join and Dial call it with their own logger if nothing has yet, because
// the SDK's default writes to stderr.
func SetSDKLogger(l *slog.Logger) {
	sdkLoggerOnce.Do(func() {})
	lksdk.SetLogger(sdkLogger(l))
}

func defaultSDKLogger(l *slog.Logger) {
	sdkLoggerOnce.Do(func() { lksdk.SetLogger(sdkLogger(l)) })
}

package logredact_test

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/examtui/examtui/internal/logredact"
)

// BenchmarkHandler measures a typical record (a message, strings, an int, an error) through the
// redacting handler against the plain text handler.
func BenchmarkHandler(b *testing.B) {
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{
		{"plain", slog.NewTextHandler(io.Discard, nil)},
		{"redacting", logredact.New(slog.NewTextHandler(io.Discard, nil))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := slog.New(bc.h)
			err := errors.New("dial tcp 127.0.0.1:7880: connection refused")
			b.ReportAllocs()
			for b.Loop() {
				l.Info("participant present", "identity", "candidate-1", "role", "candidate", "seq", 42, "err", err)
			}
		})
	}
}

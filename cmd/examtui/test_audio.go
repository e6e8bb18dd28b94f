package main

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/runtime/headless"
)

// testAudioOptions is `examtui test --audio`: scripted turns are spoken with espeak-ng and go
// through the real voice path (VAD, endpointing, STT) instead of being typed.
type testAudioOptions struct {
	enabled bool
}

func (a *testAudioOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&a.enabled, "audio", false, "speak each scripted turn (espeak-ng) through VAD, endpointing and STT")
}

// apply changes the runner's options for spoken turns; cleanup releases what it started.
func (a testAudioOptions) apply(ctx context.Context, opts *headless.Options, log *slog.Logger) (cleanup func(), err error) {
	return func() {}, nil
}

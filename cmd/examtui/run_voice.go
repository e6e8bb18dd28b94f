package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/tui"
)

// voiceOptions are the local voice flags of `examtui run`.
type voiceOptions struct {
	mic bool
}

func (v *voiceOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&v.mic, "mic", false, "answer by speaking into the microphone (PortAudio)")
}

// localVoice is the running microphone and speaker path of a console exam.
type localVoice interface {
	TUIOptions() []tui.Option
	Close() error
}

// startVoice starts the local voice path when --mic was given; nil otherwise.
func startVoice(ctx context.Context, x *app.Exam, v voiceOptions, dataDir string, log *slog.Logger) (localVoice, error) {
	if !v.mic {
		return nil, nil
	}
	return nil, errors.New("--mic: the local voice path is not wired yet")
}

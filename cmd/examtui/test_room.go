package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/roomcheck"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/sessions"
)

// voicedRMS separates speech from silence in the recordings the room tests check.
const voicedRMS = 500

// testRoomOptions is `examtui test --room-url URL`: the exam bot and a simulated candidate
// participant meet in a real LiveKit room (cmd/examtui/internal/roomcheck runs it).
type testRoomOptions struct {
	url          string
	key          string
	secret       string
	record       string
	replyTimeout time.Duration
	tail         time.Duration
	maxReply     time.Duration
	interrupt    string
	eventsPath   string
	events       io.Writer   // the --events file, opened once for every script of the run
	audioFlag    func() bool // reads --audio, which test_audio.go owns
}

func (r *testRoomOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.url, "room-url", "", "run each script through a LiveKit server at this URL: the exam bot and a simulated candidate (typed turns, or spoken with --audio) meet in a fresh room")
	f.StringVar(&r.key, "api-key", "", "with --room-url, the LiveKit API key (default $LIVEKIT_API_KEY)")
	f.StringVar(&r.secret, "api-secret", "", "with --room-url, the LiveKit API secret (default $LIVEKIT_API_SECRET)")
	f.StringVar(&r.record, "record", "", "with --room-url, write candidate.wav and examiner.wav here (default <data-dir>/sessions/<session>, or a take-N folder in it when it holds a recording)")
	f.DurationVar(&r.replyTimeout, "reply-timeout", roomcheck.DefaultReplyTimeout, "with --room-url, the longest wait for the first audio of an examiner reply (and for the server to answer)")
	f.DurationVar(&r.tail, "tail-silence", roomcheck.DefaultTailSilence, "with --room-url, the silence that ends an examiner reply (after the bot says its lines are over, when it says so)")
	f.DurationVar(&r.maxReply, "max-reply", roomcheck.DefaultMaxReply, "with --room-url, the hard cap on one examiner reply")
	f.StringVar(&r.interrupt, "interrupt", "", "with --room-url, how interrupt steps interrupt: native (a stop message, then the line; typed or spoken) or timing (the line spoken over the examiner; needs --audio); default native when typed, timing with --audio")
	f.StringVar(&r.eventsPath, "events", "", "with --room-url, write the voice events (turns, first chunks, barge-ins, timeouts) to this file as JSON Lines while the run goes; a failing write is logged and the run goes on")
	r.audioFlag = func() bool {
		v, err := cmd.Flags().GetBool("audio")
		return err == nil && v
	}
}

func (r testRoomOptions) enabled() bool { return r.url != "" }

// openEvents opens the --events file for the whole run (nil without --events); a path that
// cannot be created is a flag error, found before any script runs.
func (r *testRoomOptions) openEvents() (io.Closer, error) {
	if r.eventsPath == "" {
		return nil, nil
	}
	if !r.enabled() {
		return nil, fmt.Errorf("--events needs --room-url")
	}
	f, err := os.OpenFile(r.eventsPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--events: %w", err)
	}
	r.events = f
	return f, nil
}

// options turns the flags into harness options, checked before any script runs.
func (r testRoomOptions) options(log *slog.Logger) (roomcheck.Options, error) {
	o := roomcheck.Options{URL: r.url, APIKey: r.key, APISecret: r.secret, RecordDir: r.record,
		ReplyTimeout: r.replyTimeout, TailSilence: r.tail, MaxReply: r.maxReply,
		Spoken: r.audioFlag != nil && r.audioFlag(), Logger: log, Interrupt: r.interrupt, Events: r.events}
	if o.APIKey == "" {
		o.APIKey = os.Getenv("LIVEKIT_API_KEY")
	}
	if o.APISecret == "" {
		o.APISecret = os.Getenv("LIVEKIT_API_SECRET")
	}
	if o.RecordDir == "" {
		dataDir, err := sessions.DataDir(globals.dataDir)
		if err != nil {
			return o, err
		}
		o.DataDir = dataDir
	}
	return o, o.Validate()
}

// run plays one script through a real room.
func (r testRoomOptions) run(ctx context.Context, s *headless.Script, opts headless.Options, log *slog.Logger) (*headless.Result, error) {
	o, err := r.options(log)
	if err != nil {
		return nil, err
	}
	return roomcheck.Run(ctx, s, opts, o)
}

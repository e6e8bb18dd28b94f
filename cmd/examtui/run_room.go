package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
	"github.com/examtui/examtui/tui"
)

// defaultBotIdentity is the bot's identity in the room unless --identity says otherwise.
const defaultBotIdentity = "examtui-bot"

// roomOptions are the LiveKit flags of `examtui run`.
type roomOptions struct {
	name     string
	creds    livekitCreds
	identity string
	token    string
}

func (r *roomOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.name, "room", "", "run the exam bot in this LiveKit room (tokens: examtui token; examiners: examtui watch)")
	r.creds.addFlags(cmd, true)
	f.StringVar(&r.identity, "identity", defaultBotIdentity, "with --room, the bot's identity in the room")
	f.StringVar(&r.token, "token", "", "with --room, a bot token (examtui token --role bot) instead of the API key and secret")
}

func (r roomOptions) enabled() bool { return r.name != "" }

// config resolves the server and the bot's credentials from flags and the environment.
func (r roomOptions) config() (livekit.Config, error) {
	r.creds.resolve()
	if r.creds.url == "" {
		return livekit.Config{}, errors.New("--room: no LiveKit URL: pass --url or set LIVEKIT_URL")
	}
	cfg := livekit.Config{URL: r.creds.url, Token: r.token, Room: r.name, Identity: r.identity,
		APIKey: r.creds.key, APISecret: r.creds.secret}
	if cfg.Token == "" && (cfg.APIKey == "" || cfg.APISecret == "") {
		return livekit.Config{}, errors.New("--room: no credentials: pass --token, or set LIVEKIT_API_KEY and LIVEKIT_API_SECRET (or --api-key, --api-secret)")
	}
	if cfg.Token != "" {
		// Checked before any session is made, so a wrong token leaves nothing behind.
		if _, err := livekit.CheckToken(cfg.Token, cfg.Room, livekit.RoleBot, livekit.RoleUnknown); err != nil {
			return livekit.Config{}, fmt.Errorf("--token: %w", err)
		}
	}
	return cfg, nil
}

// providers picks the recogniser and synthesizer of a room exam with the same flags, config
// and defaults as the local voice path (--stt, --tts, --voice, run_voice.go), and the voice
// pipeline's options (endpointing; barge-in on unless --barge-in=false, since the candidate's
// client cancels its own echo).
// speechNote is set when the candidate's speech will not be understood, to be said plainly.
func (r roomOptions) providers(v voiceOptions, language string, tt *spec.ResolvedTurnTaking, log *slog.Logger) (rec audio.Recognizer, synth audio.Synthesizer, opts []voicepath.Option, speechNote string, err error) {
	bargeIn := true
	if v.flags != nil && v.flags.Changed("barge-in") {
		bargeIn = v.bargeIn
	}
	v = v.merged()
	ep, err := app.EndpointConfig(v.minDelay, v.maxDelay)
	if err != nil {
		return nil, nil, nil, "", err
	}
	rec, status, err := app.NewRecognizer(v.stt, v.sttModel, language, log)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if rec == nil {
		log.Warn("room: the candidate's speech is not recognised", "why", status)
		speechNote = fmt.Sprintf("the candidate's speech will not be understood (%s): they can only type their answers", status)
	}
	synth, err = app.NewSynthesizer(v.tts, v.voice, v.ttsModel, log)
	if err != nil {
		return nil, nil, nil, "", err
	}
	opts = []voicepath.Option{voicepath.WithRoomEndOfTurn(ep, tt, v.minDelay > 0, v.maxDelay > 0), voicepath.WithBargeIn(bargeIn),
		voicepath.WithDefaultVoice(v.voice)}
	return rec, synth, opts, speechNote, nil
}

// runRoom runs the exam bot in a LiveKit room, with the console unless --headless. The exam
// starts when the first candidate is in the room; a candidate who leaves and rejoins finds the
// exam where it was.
func runRoom(cmd *cobra.Command, specPath string, o runOptions) error {
	ctx := cmd.Context()
	cfg, err := o.room.config()
	if err != nil {
		return err
	}
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	livekit.SetSDKLogger(log)
	x, err := openExam(ctx, specPath, o, runtime.SourceRoom, dataDir, log)
	if err != nil {
		return err
	}
	defer x.Close()
	rec, synth, vopts, speechNote, err := o.room.providers(o.voice, x.Spec.Language, x.Spec.Policies.TurnTaking, log)
	if err != nil {
		return err
	}
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: cfg, Recognizer: rec, Synthesizer: synth, VoiceOptions: vopts})
	if err != nil {
		return err
	}
	r := &roomRun{x: x, rb: rb, log: log, room: o.room.name, url: cfg.URL, errw: cmd.ErrOrStderr(), speechNote: speechNote}
	if o.headless {
		return r.headless(ctx, cmd.OutOrStdout(), o.jsonOut)
	}
	return r.console(ctx, dataDir)
}

// roomRun is one exam bot at work.
type roomRun struct {
	x    *app.Exam
	rb   *app.RoomBot
	log  *slog.Logger
	room string
	url  string
	errw io.Writer
	// speechNote says the candidate's speech will not be understood (no recogniser).
	speechNote string
}

func (r *roomRun) console(ctx context.Context, dataDir string) error {
	m, err := tui.New(tui.Info{
		Title: r.x.Spec.Title, Examiner: r.x.Examiner, Input: runtime.SourceRoom, SessionID: r.x.SessionID,
		Notice: r.speechNote,
	}, r.x, append(graphOption(r.x.Spec), tui.WithSTTMinConfidence(r.x.Spec.Policies.STTMinConfidence), tui.WithLogger(r.log))...)
	if err != nil {
		r.x.CloseRoom(r.rb)
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	started := make(chan error, 1)
	go func() {
		err := r.x.StartWhenCandidate(cctx, r.rb)
		if err != nil && cctx.Err() == nil {
			r.log.Error("room exam did not start", "err", err)
			cancel() // the console would wait for nothing
		}
		started <- err
	}()
	err = tui.Run(cctx, m, r.x.Events())
	cancel()
	startErr := <-started
	if ferr := r.x.CloseRoom(r.rb); err == nil {
		err = ferr
	}
	if err == nil && startErr != nil && !errors.Is(startErr, context.Canceled) && !errors.Is(startErr, livekit.ErrCandidateMissing) {
		err = startErr
	}
	if err == nil && r.x.Store != nil {
		fmt.Fprintf(r.errw, "session %s stored in %s (examtui sessions show %s)\n", r.x.SessionID, r.x.Store.Target(), r.x.SessionID)
	}
	return err
}

// headless runs the room's exam with no console (app.Exam.RunRoomHeadless); logs go to the
// log file.
func (r *roomRun) headless(ctx context.Context, w io.Writer, asJSON bool) error {
	fmt.Fprintf(r.errw, "examtui: exam bot in room %q at %s (session %s); waiting for the candidate\n", r.room, r.url, r.x.SessionID)
	if r.speechNote != "" {
		fmt.Fprintf(r.errw, "examtui: %s\n", textsafe.Line(r.speechNote))
	}
	return headlessExit(r.x.RunRoomHeadless(ctx, r.rb, app.HeadlessConfig{
		Out: w, Err: r.errw, JSON: asJSON, Log: r.log, ResumeFlags: "--room " + r.room}))
}

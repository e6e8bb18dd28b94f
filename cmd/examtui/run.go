package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/tui"
)

type runOptions struct {
	examiner    string
	model       string
	candidate   string
	candidateID string
	resume      string
	noStore     bool
	headless    bool         // no console: events to stdout (run_headless.go, run_room.go)
	watch       bool         // recompile the spec when it changes (run_watch.go)
	jsonOut     bool         // with --headless: events as JSON lines
	voice       voiceOptions // --mic and audio devices (run_voice.go)
	room        roomOptions  // --room and LiveKit credentials (run_room.go)
	limits      llm.Limits   // --llm-first-token, --llm-timeout, --llm-failover
}

func newRunCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [SPEC]",
		Short: "Run an exam in the console",
		Long: `Run an exam in the console: the examiner asks, you answer (typed by default), and the
panes show the transcript, evidence, guardrails and timers live. SPEC is an exam file, or
"demo" (the default) for the built-in exam. Every event is stored in the session store; an
interrupted session continues with --resume ID.

--mic answers by speaking (PortAudio, VAD, speech recognition; the examiner speaks back),
--room runs the exam bot in a LiveKit room, and --headless runs with no console: answers
from stdin (one line per turn, /pause /resume /skip /advance /end /admin TEXT /queue TEXT),
events on stdout.`,
		Example: `  examtui run exam.yaml
  examtui run demo --examiner offline
  OPENAI_API_KEY=... examtui run exam.yaml --examiner llm --model gpt-4o-mini
  examtui run exam.yaml --mic --barge-in
  examtui run exam.yaml --room exam-42 --headless --json
  examtui run demo --headless < answers.txt
  examtui run --resume 3f2a`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			specPath := app.DemoSpec
			if len(args) == 1 {
				specPath = args[0]
			}
			if err := checkWatch(specPath, o); err != nil {
				return err
			}
			if o.voice.mic && (o.headless || o.room.enabled()) {
				return errors.New("--mic runs the local console; it cannot be combined with --headless or --room")
			}
			switch {
			case o.room.enabled():
				return runRoom(cmd, specPath, o)
			case o.headless:
				return runHeadless(cmd, specPath, o)
			}
			return runConsole(cmd, specPath, o)
		},
	}
	cmd.Long += "\n\n" + runtime.BotEnvHelp()
	f := cmd.Flags()
	f.StringVar(&o.examiner, "examiner", app.ExaminerAuto, "examiner: auto (LLM when OPENAI_* is set), offline or llm")
	f.StringVar(&o.model, "model", "", "LLM model (default $EXAMTUI_MODEL or gpt-4o-mini)")
	f.StringVar(&o.candidate, "candidate", "", "candidate name recorded with the session")
	f.StringVar(&o.candidateID, "candidate-id", "", "attach the session to this candidate of the store's roster (examtui candidates import); their name unless --candidate")
	f.StringVar(&o.resume, "resume", "", "continue an interrupted session (id or unique prefix)")
	f.BoolVar(&o.noStore, "no-store", false, "do not store the session")
	f.BoolVar(&o.headless, "headless", false, "no console: print events to stdout (answers are read from stdin unless --room)")
	f.BoolVar(&o.jsonOut, "json", false, "with --headless, print events as JSON lines")
	f.DurationVar(&o.limits.FirstToken, "llm-first-token", 0, "longest wait for the LLM examiner's first token, or between two parts of its reply (default $"+llm.EnvFirstTokenTimeout+" or 5s)")
	f.DurationVar(&o.limits.Timeout, "llm-timeout", 0, "longest LLM examiner turn, retries included, and longest wait in all on a failing one (default $"+llm.EnvTimeout+" or 30s)")
	f.IntVar(&o.limits.FailoverAfter, "llm-failover", 0, "failed LLM turns in a row before the offline examiner takes over (default $"+llm.EnvFailoverAfter+" or 3)")
	f.BoolVar(&o.watch, "watch", false, "recompile SPEC when the file changes: a valid edit applies from the next node, an invalid one shows its errors")
	o.voice.addFlags(cmd)
	o.room.addFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("examiner", cobra.FixedCompletions(
		[]string{app.ExaminerAuto, app.ExaminerOffline, app.ExaminerLLM}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runDemo opens the console on the built-in demo exam with typed answers.
func runDemo(cmd *cobra.Command) error {
	return runConsole(cmd, app.DemoSpec, runOptions{examiner: app.ExaminerAuto})
}

func runConsole(cmd *cobra.Command, specPath string, o runOptions) error {
	ctx := cmd.Context()
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()

	input := runtime.SourceTyped
	if o.voice.mic {
		input = runtime.SourceMic
	}
	x, err := openExam(ctx, specPath, o, input, dataDir, log)
	if err != nil {
		return err
	}
	defer x.Close()

	tuiOpts := []tui.Option{tui.WithSTTMinConfidence(x.Spec.Policies.STTMinConfidence), tui.WithLogger(log)}
	tuiOpts = append(tuiOpts, graphOption(x.Spec)...)
	if o.voice.mic {
		if err := micNotice(cmd, x); err != nil {
			return err
		}
	}
	voice, notice, err := startVoice(ctx, x, o.voice, dataDir, log)
	if err != nil {
		return err
	}
	if voice != nil {
		defer voice.Close()
		tuiOpts = append(tuiOpts, voice.TUIOptions()...)
	}
	shown := x.Input
	if shown == runtime.SourceMic && !x.CanSwitchInput() {
		shown = runtime.SourceTyped // no microphone or no recogniser: the meter says why
	}
	m, err := tui.New(tui.Info{
		Title: x.Spec.Title, Examiner: x.Examiner, Input: shown, SessionID: x.SessionID, Notice: notice,
	}, x, tuiOpts...)
	if err != nil {
		return err
	}
	if err := x.Start(ctx); err != nil {
		return fmt.Errorf("start exam: %w", err)
	}
	log.Info("exam started", "session", x.SessionID, "exam", x.Spec.ID, "examiner", x.Examiner)
	if o.watch {
		defer watchSpec(ctx, specPath, x.Controller, log)()
	}
	err = tui.Run(ctx, m, x.Events())
	if cerr := x.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err == nil && x.Store != nil {
		fmt.Fprintf(os.Stderr, "session %s stored in %s (examtui sessions show %s)\n", x.SessionID, x.Store.Target(), x.SessionID)
	}
	return err
}

// openExam opens the exam a run command names, with its store, and logs the spec's warnings.
// An invalid spec exits with status 1 and its diagnostics.
func openExam(ctx context.Context, specPath string, o runOptions, input runtime.InputSource, dataDir string, log *slog.Logger) (*app.Exam, error) {
	x, err := app.Open(ctx, app.Options{
		SpecPath: specPath, Examiner: o.examiner, Model: o.model, Candidate: o.candidate, CandidateID: o.candidateID,
		DataDir: dataDir, Store: app.StoreTarget(globals.store, dataDir), NoStore: o.noStore, ResumeID: o.resume, Logger: log, Input: input,
		Limits: o.limits, Languages: languagePacks(),
	})
	if err != nil {
		if errors.Is(err, app.ErrSpecInvalid) {
			return nil, &exitError{code: 1, msg: err.Error()}
		}
		return nil, err
	}
	for _, d := range x.Diags {
		log.Warn("spec", "diagnostic", d.String())
	}
	return x, nil
}

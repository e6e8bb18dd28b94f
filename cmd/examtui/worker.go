package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/worker"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/livekit/agent"
	"github.com/examtui/examtui/transport/voicepath"
)

// defaultAgentName is the agent name a worker registers and a dispatch addresses.
const defaultAgentName = "examtui"

type workerOptions struct {
	creds        livekitCreds
	agentName    string
	maxExams     int
	specsDir     string
	examiner     string
	model        string
	jsonLogs     bool
	drainTimeout time.Duration
	noTakeover   bool
	voice        voiceOptions
}

func newWorkerCmd() *cobra.Command {
	var o workerOptions
	cmd := &cobra.Command{
		// A worker drains on SIGTERM for up to --drain-timeout: no grace timer (main.go).
		Annotations: map[string]string{annotDrains: "true"},
		Use:         "worker --specs DIR",
		Short:       "Take exams from LiveKit's agent dispatch",
		Long: `Register with the LiveKit server as an agent worker and run the exams it dispatches, one
per room, each with its own examiner bot and session. A dispatch names its exam in its
metadata (JSON: {"spec": "NAME", "candidate": "...", "options": {"examiner": "offline"}});
NAME is a spec file in --specs DIR (NAME, NAME.yaml, NAME.yml or NAME.json), or "demo".
A dispatch with bad metadata or an unknown spec is ended as failed with the reason.

Workers sharing one session store take over each other's exams when one dies: the exam
resumes from its stored session on another worker within seconds. On one machine that can be
the data directory; workers on several machines share a PostgreSQL store (--store
postgres://..., $EXAMTUI_STORE or store: in the config file).

SIGTERM or ctrl+c drains: no new exams; exams still waiting for their candidate stop at
once, running exams may finish for --drain-timeout, the rest are stopped resumable. A second
signal stops at once.`,
		Example: `  examtui worker --specs ./exams --max-exams 20
  examtui dispatch --room exam-42 --spec oral-b2 --candidate "Ada Lovelace"
  examtui worker --specs ./exams --json 2>>worker.log
  examtui worker --specs ./exams --store postgres://examtui@db.example/exams`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd, o) },
	}
	o.creds.addFlags(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.agentName, "agent-name", defaultAgentName, "agent name to register (dispatches address it)")
	f.IntVar(&o.maxExams, "max-exams", 10, "exams this worker runs at once; beyond it the server is told the worker is full")
	f.StringVar(&o.specsDir, "specs", "", "directory of the exam specs dispatches may name")
	f.StringVar(&o.examiner, "examiner", app.ExaminerAuto, "examiner: auto (LLM when OPENAI_* is set), offline or llm")
	f.StringVar(&o.model, "model", "", "LLM model (default $EXAMTUI_MODEL or gpt-4o-mini)")
	f.BoolVar(&o.jsonLogs, "json", false, "logs as JSON lines on stderr (no live table)")
	f.DurationVar(&o.drainTimeout, "drain-timeout", 10*time.Minute, "on SIGTERM or ctrl+c, how long running exams may go on before they are stopped resumable")
	f.BoolVar(&o.noTakeover, "no-takeover", false, "do not take over exams whose worker died")
	o.voice.addRoomFlags(cmd)
	return cmd
}

// addRoomFlags adds the voice flags a room exam uses (run --room has the same).
func (v *voiceOptions) addRoomFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	v.flags = f
	def := audio.DefaultEndpointConfig()
	f.StringVar(&v.stt, "stt", "", "speech recognition: auto, openai, none (default: config audio.stt, else auto)")
	f.StringVar(&v.tts, "tts", "", "the examiner's voice: auto, espeak, openai, none (default: config audio.tts, else auto)")
	f.StringVar(&v.voice, "voice", "", "the examiner's voice when the persona names none")
	v.addModelFlags(cmd)
	f.DurationVar(&v.minDelay, "min-endpointing-delay", def.MinEndpointingDelay, "silence that ends a spoken turn")
	f.DurationVar(&v.maxDelay, "max-endpointing-delay", def.MaxEndpointingDelay, "longest wait while a spoken turn looks unfinished")
	f.BoolVar(&v.bargeIn, "barge-in", true, "let the candidate interrupt the examiner")
}

func runWorker(cmd *cobra.Command, o workerOptions) error {
	o.creds.resolve()
	switch {
	case o.creds.url == "":
		return errors.New("no LiveKit URL: pass --url or set LIVEKIT_URL")
	case o.creds.key == "" || o.creds.secret == "":
		return errors.New("no API key/secret: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET or pass --api-key and --api-secret")
	case o.maxExams < 1:
		return fmt.Errorf("--max-exams must be at least 1, got %d", o.maxExams)
	}
	if o.specsDir != "" {
		if st, err := os.Stat(o.specsDir); err != nil || !st.IsDir() {
			return fmt.Errorf("--specs %s: not a directory", o.specsDir)
		}
	}
	dataDir, fileLog, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	stdout := cmd.OutOrStdout()
	outFile, isFile := stdout.(*os.File)
	table := !o.jsonLogs && isFile && term.IsTerminal(outFile.Fd())
	log := fileLog
	if !table {
		log = stderrLogger(cmd.ErrOrStderr(), o.jsonLogs)
	}
	livekit.SetSDKLogger(log)
	defer startRetention(cmd.Context(), dataDir, log)()

	runner, err := worker.NewRunner(cmd.Context(), worker.Config{
		SpecsDir: o.specsDir, DataDir: dataDir, Store: app.StoreTarget(globals.store, dataDir), Examiner: o.examiner, Model: o.model, Logger: log,
		Languages: languagePacks(), APIKey: o.creds.key, APISecret: o.creds.secret,
		Voice: func(language string, tt *spec.ResolvedTurnTaking, l *slog.Logger) (audio.Recognizer, audio.Synthesizer, []voicepath.Option, error) {
			rec, synth, opts, _, err := roomOptions{}.providers(o.voice, language, tt, l) // the speech note is logged
			return rec, synth, opts, err
		},
	})
	if err != nil {
		return err
	}
	defer runner.Close()
	cpu := &worker.CPULoad{}
	w, err := agent.New(agent.Config{URL: o.creds.url, APIKey: o.creds.key, APISecret: o.creds.secret,
		AgentName: o.agentName, Version: version, Permissions: botPermissions()}, runner,
		agent.WithLogger(log), agent.WithMaxJobs(o.maxExams), agent.WithLoad(cpu.Load))
	if err != nil {
		return err
	}

	// The connection and the takeover watcher stop only after the jobs: a draining worker
	// still reports its jobs' ends to the server.
	connCtx, stopConn := context.WithCancel(context.Background())
	defer stopConn()
	served := make(chan error, 1)
	go func() { served <- w.Run(connCtx) }()
	if !o.noTakeover {
		rooms := lksdk.NewRoomServiceClient(httpURL(o.creds.url), o.creds.key, o.creds.secret)
		go func() {
			err := runner.WatchOrphans(connCtx, worker.Takeover{Rooms: rooms, Worker: w, URL: o.creds.url,
				APIKey: o.creds.key, APISecret: o.creds.secret})
			if err != nil {
				log.Error("takeover watcher", "err", err)
			}
		}()
	}
	log.Info("worker started", "agent", o.agentName, "url", o.creds.url, "maxExams", o.maxExams, "specs", o.specsDir, "data", dataDir)
	if !table && !o.jsonLogs { // JSON logs stay pure JSON lines
		fmt.Fprintf(cmd.ErrOrStderr(), "examtui worker %q at %s: up to %d exams (ctrl+c drains)\n", o.agentName, o.creds.url, o.maxExams)
	}

	var tableDone chan struct{}
	tableCtx, stopTable := context.WithCancel(context.Background())
	defer stopTable()
	if table {
		tableDone = make(chan struct{})
		go func() { defer close(tableDone); worker.LiveTable(tableCtx, stdout, o.agentName, w, runner) }()
	}

	<-cmd.Context().Done() // first SIGTERM or ctrl+c
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	now := make(chan struct{})
	go func() {
		select {
		case <-sig:
			close(now)
		case <-connCtx.Done():
		}
	}()
	worker.Drain(w, runner, o.drainTimeout, now, log)
	stopConn()
	<-served
	stopTable()
	if tableDone != nil {
		<-tableDone
	}
	log.Info("worker stopped")
	if !table && !o.jsonLogs {
		fmt.Fprintln(cmd.ErrOrStderr(), "examtui worker stopped")
	}
	return nil
}

// botPermissions are the grants of the bot's participant in each job's room: the same as a
// bot token's (examtui token --role bot).
func botPermissions() *lkproto.ParticipantPermission {
	return &lkproto.ParticipantPermission{CanSubscribe: true, CanPublish: true, CanPublishData: true,
		CanPublishSources: []lkproto.TrackSource{lkproto.TrackSource_MICROPHONE}}
}

func stderrLogger(w io.Writer, asJSON bool) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToLower(globals.logLevel))) // checked by setup
	opts := &slog.HandlerOptions{Level: level}
	if asJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// httpURL is the server API's address for a ws(s) URL.
func httpURL(u string) string {
	switch {
	case strings.HasPrefix(u, "ws://"):
		return "http://" + strings.TrimPrefix(u, "ws://")
	case strings.HasPrefix(u, "wss://"):
		return "https://" + strings.TrimPrefix(u, "wss://")
	}
	return u
}

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/controlhttp"
)

type controllerOptions struct {
	addr        string
	maxSessions int
	idle        time.Duration
}

func newControllerCmd() *cobra.Command {
	var o controllerOptions
	cmd := &cobra.Command{
		Use:   "controller SPEC",
		Short: "Serve the runtime controller over HTTP for Pipecat bots",
		Long: `Serve examtui's runtime controller over HTTP/JSON: a Pipecat bot (contrib/pipecat)
creates a session per conversation and submits each candidate turn with its LLM's
report_observation; the controller decides exactly as in every other examtui exam (guardrails,
evidence, filters, commands, the confidence gate, failover) and answers with what the candidate
must hear and the node now current. Sessions are stored like any other exam: sessions show,
replay and the exports work on them.

Bots authenticate with "Authorization: Bearer $` + controlhttp.EnvToken + `". Without a token
the server listens on loopback only. SIGINT or SIGTERM stops it; open sessions stay resumable.`,
		Example: `  examtui controller demo --addr 127.0.0.1:8765
  EXAMTUI_CONTROLLER_TOKEN=… examtui controller exam.yaml --addr 0.0.0.0:8765 --store postgres://…`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runController(cmd, args[0], o) },
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8765", "address to listen on (HOST:PORT)")
	cmd.Flags().IntVar(&o.maxSessions, "max-sessions", controlhttp.DefaultMaxSessions, "open sessions at most; past it a new one is refused 503")
	cmd.Flags().DurationVar(&o.idle, "idle-timeout", controlhttp.DefaultIdleExpiry, "close a session no request has touched for this long (it stays resumable)")
	return cmd
}

func runController(cmd *cobra.Command, specPath string, o controllerOptions) error {
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	token := strings.TrimSpace(os.Getenv(controlhttp.EnvToken))
	if err := controlhttp.CheckListen(o.addr, token); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := app.OpenStore(ctx, app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := controlhttp.New(st, app.Options{SpecPath: specPath, DataDir: dataDir, Logger: log, Languages: languagePacks()},
		controlhttp.WithToken(token), controlhttp.WithMaxSessions(o.maxSessions), controlhttp.WithIdleExpiry(o.idle))
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.addr)
	if err != nil {
		return errors.Join(err, srv.Close())
	}
	fmt.Fprintf(cmd.OutOrStdout(), "examtui controller: serving %s on http://%s (store %s)\n", specPath, ln.Addr(), st.Target())
	log.Info("controller serving", "spec", specPath, "addr", ln.Addr().String(), "auth", token != "")
	return srv.Serve(ctx, ln)
}

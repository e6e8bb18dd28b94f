package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/tui/markconsole"
)

type markOptions struct {
	exam     string
	marker   string
	identity string
}

func newMarkCmd() *cobra.Command {
	var o markOptions
	cmd := &cobra.Command{
		Use:   "mark [SESSION] [--exam EXAM] --marker NAME",
		Short: "Mark a finished exam, or work through an exam's queue, in a console",
		Long: `Open the marking console on one session (SESSION, an id or a unique prefix) or on the queue
of an exam (--exam: its finished sessions this marker has not marked yet, in the order they
started; n moves to the next).

Per criterion of the exam's marking scheme the console shows the rule's proposal and the
evidence it rests on (tab jumps the transcript to each piece of evidence's turn; p plays the
candidate's recording from that moment, where the session was recorded and sox's play is
installed), the model panel's levels and rationales (P runs it, see docs/marking.md), and your
level and justification: ←/→ or a number picks the level, enter asks for the justification and
saves the mark as yours. You never see another marker's levels: marking is blind.

You are who the store says you are: the PostgreSQL role you connect as, or your
operating-system account on a local store. --marker, when given, must be that name.`,
		Example: `  examtui mark 3f9c2a --marker ana
  examtui mark --exam hotel-breakfast --marker ben`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			return runMark(cmd, id, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.exam, "exam", "", "work through this exam's queue of sessions to mark")
	markerFlag(cmd, &o.marker, "who is marking")
	f.StringVar(&o.identity, "identity", "", "age identity file to play recordings encrypted at rest")
	return cmd
}

func runMark(cmd *cobra.Command, id string, o markOptions) error {
	if (id == "") == (o.exam == "") {
		return errors.New("name one session, or an exam with --exam")
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	store, err := app.OpenStore(ctx, app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return err
	}
	defer store.Close()
	who, err := store.Identity(ctx)
	if err != nil {
		return err
	}
	if o.marker != "" && o.marker != who {
		return fmt.Errorf("%w: --marker %q, but the store knows you as %q", marking.ErrNotYou, o.marker, who)
	}
	o.marker = who
	player, _ := exec.LookPath("play")
	run := func(ctx context.Context, in panel.Input) (*panel.Result, error) {
		p, err := buildPanel(log)
		if err != nil {
			return nil, err
		}
		return p.Run(ctx, in)
	}
	decrypt, err := playDecrypter(o.identity)
	if err != nil {
		return err
	}
	b, err := markconsole.NewStoreBackend(store, o.marker, o.exam, run, player, markconsole.WithDecrypt(decrypt))
	if err != nil {
		return err
	}
	m, err := markconsole.New(b, id, markconsole.WithQueue(o.exam != ""))
	if err != nil {
		return err
	}
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("mark: %w", err)
	}
	return nil
}

// buildPanel is the model panel from the config file's panel: section on the mark stage's
// endpoint; marks propose --panel and the marking console's P both use it.
func buildPanel(log *slog.Logger) (*panel.Panel, error) {
	ep, err := endpoint.Resolve(endpoint.StageMark)
	if err != nil {
		return nil, err
	}
	return app.Panel(globals.config.Panel, ep, panel.WithLogger(log))
}

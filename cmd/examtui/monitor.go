package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
	"github.com/examtui/examtui/tui/controlroom"
)

// monitorOptions are the flags of examtui monitor.
type monitorOptions struct {
	asJSON   bool
	quiet    bool
	readOnly bool
	interval time.Duration
	// agentName is the workers' agent name, to find rooms dispatched to them and not started.
	agentName string
}

func newMonitorCmd() *cobra.Command {
	var o monitorOptions
	cmd := &cobra.Command{
		Use:   "monitor [--json] [--read-only] [--quiet]",
		Short: "Supervise every live exam on the session store from one console",
		Long: `Open the control room: every exam running on the session store, one row each (candidate,
exam, node, time in node and in exam against their budgets, input, examiner, state, the
candidate's last line and alert badges), the most urgent first, and today's finished exams
below. Alerts (distress, anxiety, output filter, repeated low STT confidence, a silent
candidate or a stalled exam, examiner failures, an exam whose process died, a node over its
budget) ring the terminal bell once each, unless --quiet.

With LiveKit configured, the exams running in LiveKit rooms are shown too, and the rooms an
exam was dispatched to (examtui dispatch, to the workers' --agent-name) that no exam bot has
joined yet are listed apart as "dispatched, not started", with their age; one waiting longer
than monitor.notStartedAfter (30s) raises a WAITING alert.

The store is the one every command uses: --store, $EXAMTUI_STORE or store: in the config
file (a data directory or a postgres:// URL), else the data directory. On a PostgreSQL store
the control room sees the exams of every machine writing to it, and an exam whose process or
machine died is shown interrupted.

Enter opens the selected exam's supervise console, the one examtui watch shows, with pause,
skip, advance, end and instructions sent to the process running the exam through the store;
esc returns to the list. --read-only opens consoles without controls, for observers.

With --json no console opens: each alert is printed as one JSON line as it is raised.
Thresholds come from the config file's monitor section (see docs/monitor.md); the COST
column prices each exam from the config file's prices:, and budget: {costPerExam: …} raises
a cost alert on an exam that passes it.`,
		Example: `  examtui monitor
  examtui monitor --read-only
  examtui monitor --store postgres://examtui@db.example/exams
  examtui monitor --json | while read -r a; do notify-send "$a"; done`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMonitor(cmd, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.asJSON, "json", false, "print one JSON line per alert instead of opening the console")
	f.BoolVar(&o.quiet, "quiet", false, "do not ring the terminal bell on new alerts")
	f.BoolVar(&o.readOnly, "read-only", false, "observer: exam consoles open without controls")
	f.DurationVar(&o.interval, "interval", 500*time.Millisecond, "how often the store is polled")
	f.StringVar(&o.agentName, "agent-name", defaultAgentName, "the workers' agent name, to show rooms dispatched to them and not started")
	return cmd
}

// openMonitorStore opens the session store the control room follows: --store, $EXAMTUI_STORE
// or the config file's store: (a data directory or a postgres:// URL), else the data
// directory. The label is the store as shown to people, its password masked.
func openMonitorStore(ctx context.Context, dataDir string, log *slog.Logger) (*sessions.Store, string, error) {
	s, err := app.OpenStore(ctx, app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return nil, "", err
	}
	return s, s.Target(), nil
}

// monitorThresholds reads the config file's monitor section, its prices and its budget.
func monitorThresholds(f config.File) (monitor.Thresholds, error) {
	c := f.Monitor
	th := monitor.Thresholds{Prices: f.Prices, CostPerExam: f.Budget.CostPerExam}
	for _, d := range []struct {
		name string
		val  string
		dst  *time.Duration
	}{{"silentAfter", c.SilentAfter, &th.Silent}, {"stalledAfter", c.StalledAfter, &th.Stalled},
		{"overBudgetGrace", c.OverBudgetGrace, &th.OverBudgetGrace}, {"notStartedAfter", c.NotStartedAfter, &th.NotStarted}} {
		if d.val == "" {
			continue
		}
		v, err := time.ParseDuration(d.val)
		if err != nil || v < 0 {
			return th, fmt.Errorf("config monitor.%s: %q is not a duration like 90s or 5m", d.name, d.val)
		}
		*d.dst = v
	}
	if c.LowConfidence < 0 || c.ExaminerErrors < 0 {
		return th, fmt.Errorf("config monitor: lowConfidence and examinerErrors must not be negative")
	}
	th.LowConfidence, th.ExaminerErrors = c.LowConfidence, c.ExaminerErrors
	return th, nil
}

func runMonitor(cmd *cobra.Command, o monitorOptions) error {
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	th, err := monitorThresholds(globals.config)
	if err != nil {
		return err
	}
	board, err := monitor.NewBoard(th)
	if err != nil {
		return err
	}
	store, label, err := openMonitorStore(ctx, dataDir, log)
	if err != nil {
		return err
	}
	defer store.Close()
	defer startRetention(ctx, dataDir, log)()

	updates := make(chan monitor.Update, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		monitor.Follow(ctx, store, monitor.FollowOptions{Interval: o.interval, Logger: log}, updates)
	}()
	rooms := newRoomWatcher(log, o.agentName)
	roomMsgs := make(chan app.RoomMsg, 16)
	if rooms != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rooms.Run(ctx, roomMsgs)
		}()
	}
	defer wg.Wait()
	defer cancel()

	if o.asJSON {
		return monitorJSON(ctx, board, updates, roomMsgs, cmd.OutOrStdout())
	}
	m, err := controlroom.New(board,
		controlroom.WithLoader(openAccess(store, func(ctx context.Context, id string) ([]runtime.Event, error) {
			// A room exam whose bot writes to another store: its history is what the room showed.
			evs, err := store.LoadEvents(ctx, id)
			if err == nil && len(evs) == 0 {
				return rooms.History(id), nil
			}
			return evs, err
		})),
		controlroom.WithBackend(func(r *monitor.Row) (tui.Backend, error) {
			// An exam in a room is controlled over the room's examiner-commands topic; any
			// other through the store's command channel.
			if b, ok := rooms.Backend(ctx, r.SessionID); ok {
				return b, nil
			}
			return app.StoreBackend(ctx, store, r.SessionID, "monitor:"+defaultExaminerIdentity()), nil
		}),
		controlroom.WithCandidateLink(monitorLinks(store)), controlroom.WithRevokeLinks(monitorRevoke(store)),
		controlroom.WithReadOnly(o.readOnly), controlroom.WithQuiet(o.quiet),
		controlroom.WithStoreLabel(label), controlroom.WithLogger(log),
		controlroom.WithConsoleOptions(tui.WithLogger(log)))
	if err != nil {
		return err
	}
	p := tea.NewProgram(m, tea.WithContext(ctx))
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case u, ok := <-updates:
				if !ok {
					return
				}
				p.Send(controlroom.UpdateMsg(u))
			case rm := <-roomMsgs:
				p.Send(roomMsgToControlRoom(rm))
			}
		}
	}()
	_, err = p.Run()
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// roomMsgToControlRoom is what the room watcher's report is to the control room.
func roomMsgToControlRoom(rm app.RoomMsg) tea.Msg {
	switch {
	case rm.Scanned:
		return controlroom.WaitingMsg(rm.Waiting)
	case rm.Session != "":
		return controlroom.RoomsMsg{rm.Session: rm.Room}
	}
	return controlroom.UpdateMsg(rm.Update)
}

// monitorLinks is how the control room's link key makes a candidate's join link: on the
// candidate server the config names (serve.url, $EXAMTUI_SERVE_URL), in the store the control
// room follows, which examtui serve must share; nil when no server is configured.
func monitorLinks(store *sessions.Store) controlroom.LinkFunc {
	base := candsrv.ServeURL("")
	if base == "" {
		return nil
	}
	return func(ctx context.Context, r *monitor.Row) (string, error) {
		return candsrv.RoomLink(ctx, store, base, candsrv.RoomExam{SessionID: r.SessionID, Room: r.Room, Candidate: r.Candidate}, time.Now())
	}
}

// monitorRevoke is how the control room's revoke key withdraws a room's candidate links (all of
// the room's: a room exam has one candidate); nil when no candidate server is configured.
func monitorRevoke(store *sessions.Store) controlroom.RevokeFunc {
	if candsrv.ServeURL("") == "" {
		return nil
	}
	return func(ctx context.Context, r *monitor.Row) (int, error) {
		return store.RevokeJoinCodes(ctx, r.Room, "", time.Now())
	}
}

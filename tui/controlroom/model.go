package controlroom

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// UpdateMsg carries one poll of the session store (monitor.Follow) to the control room.
type UpdateMsg monitor.Update

// RoomsMsg says which sessions run in which LiveKit room (session id → room).
type RoomsMsg map[string]monitor.RoomInfo

// WaitingMsg is the room watcher's list of rooms with an exam dispatched and not started
// (monitor.Board.SetWaiting): the whole list as of one scan.
type WaitingMsg []monitor.Waiting

// tickMsg refreshes clocks and time-based alerts.
type tickMsg time.Time

// loadedMsg brings an opened exam's history.
type loadedMsg struct {
	id     string
	events []runtime.Event
	err    error
}

// loadTimeout bounds reading one exam's history.
const loadTimeout = 30 * time.Second

// Model is the control room's root model: the list, the selected exam's detail, the filter,
// the help, and (while one is open) an exam's console, which gets every key but esc at rest.
type Model struct {
	opts   options
	board  *monitor.Board
	keys   KeyMap
	help   help.Model
	styles tui.Styles

	width, height int

	cursor    string // selected session id: survives reordering and closing a console
	offset    int    // first list line shown
	filter    textinput.Model
	filtering bool
	showHelp  bool
	notice    string
	link      string // the last candidate link made, shown on the footer until the next key
	bells     int    // alerts that rang (or would have, with --quiet): for the status line

	console    *tui.Model
	consoleID  string
	consoleRO  bool  // the open console has no controls
	consoleSeq int64 // the highest seq the open console has been given
	loading    bool
	pending    []runtime.Event // the open exam's events that arrived while its history loaded
}

// New builds the control room over board.
func New(board *monitor.Board, opts ...Option) (*Model, error) {
	if board == nil {
		return nil, fmt.Errorf("%w: nil board", ErrInvalidOption)
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.since.IsZero() {
		o.since = monitor.StartOfDay(o.now())
	}
	m := &Model{opts: o, board: board, keys: DefaultKeyMap(), help: help.New()}
	m.filter = textinput.New()
	m.filter.Prompt = "filter> "
	m.filter.CharLimit = 200
	m.setStyles(o.dark)
	return m, nil
}

func (m *Model) setStyles(dark bool) {
	m.opts.dark = dark
	m.styles = tui.NewStyles(tui.DefaultPalette(), dark, m.opts.noColor)
	m.help.Styles = m.styles.Help
	m.filter.SetStyles(m.styles.Input) // the console's input look; colourless under NO_COLOR
}

// Init starts the clock.
func (m *Model) Init() tea.Cmd { return m.tickCmd() }

func (m *Model) tickCmd() tea.Cmd {
	if m.opts.tick <= 0 {
		return nil
	}
	return tea.Tick(m.opts.tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Selected is the selected exam's session id ("" with an empty list).
func (m *Model) Selected() string { return m.cursor }

// Open is the session id whose console is open ("" on the list).
func (m *Model) Open() string { return m.consoleID }

// Board is the board the control room shows.
func (m *Model) Board() *monitor.Board { return m.board }

// Update routes messages: store updates to the board (and to the open console), keys to the
// console while one is open, to the list otherwise.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.filter.SetWidth(max(msg.Width-len(m.filter.Prompt)-1, 1))
		if m.console != nil {
			m.console.Update(msg)
		}
		return m, nil
	case tea.BackgroundColorMsg:
		m.setStyles(msg.IsDark())
		if m.console != nil {
			m.console.Update(msg)
		}
		return m, nil
	case UpdateMsg:
		return m, m.applyUpdate(monitor.Update(msg))
	case RoomsMsg:
		for id, info := range msg {
			m.board.SetRoom(id, info)
		}
		return m, nil
	case WaitingMsg:
		m.board.SetWaiting(msg)
		return m, nil
	case tickMsg:
		cmds := []tea.Cmd{m.tickCmd(), m.ring(m.board.Tick(m.opts.now()))}
		if m.console != nil {
			_, c := m.console.Update(msg)
			cmds = append(cmds, c)
		}
		return m, tea.Batch(cmds...)
	case loadedMsg:
		return m, m.loaded(msg)
	case linkMsg:
		return m, m.linked(msg)
	case revokedMsg:
		m.revoked(msg)
		return m, nil
	case tea.KeyPressMsg:
		if m.console != nil {
			return m, m.consoleKey(msg)
		}
		return m, m.listKey(msg)
	}
	if m.console != nil {
		_, cmd := m.console.Update(msg)
		return m, cmd
	}
	if m.filtering {
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		return m, cmd
	}
	return m, nil
}

// applyUpdate feeds a poll to the board, hands the open exam's new events to its console and
// rings for new alerts (not for the history the first poll brings).
func (m *Model) applyUpdate(u monitor.Update) tea.Cmd {
	if u.Err != nil {
		m.notice = "store: " + textsafe.Line(u.Err.Error())
	}
	alerts := m.board.ApplyUpdate(u)
	if m.consoleID != "" {
		var mine []runtime.Event
		for _, ev := range u.Events {
			if ev.SessionID == m.consoleID {
				mine = append(mine, ev)
			}
		}
		if m.loading {
			m.pending = append(m.pending, mine...)
		} else {
			m.feedConsole(mine)
		}
	}
	m.keepCursor()
	if u.First {
		return nil
	}
	return m.ring(alerts)
}

// ring sounds the bell once for a batch of new alerts.
func (m *Model) ring(alerts []monitor.Alert) tea.Cmd {
	if len(alerts) == 0 {
		return nil
	}
	m.bells += len(alerts)
	if m.opts.quiet {
		return nil
	}
	return tea.Raw("\a")
}

// visible is the list as shown: live exams by urgency, then today's finished ones, filtered.
func (m *Model) visible() (live, finished []*monitor.Row) {
	live, finished = m.board.Rows(m.opts.since)
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	if q == "" {
		return live, finished
	}
	keep := func(rows []*monitor.Row) []*monitor.Row {
		out := rows[:0:0]
		for _, r := range rows {
			if matches(r, q) {
				out = append(out, r)
			}
		}
		return out
	}
	return keep(live), keep(finished)
}

// visibleWaiting is the rooms dispatched and not started, filtered like the exams.
func (m *Model) visibleWaiting() []*monitor.Waiting {
	all := m.board.Waiting()
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	if q == "" {
		return all
	}
	out := all[:0:0]
	for _, w := range all {
		hay := []string{w.Room, w.Candidate, waitingState, monitor.AlertNotStarted.Badge(), monitor.AlertNotStarted.String()}
		if strings.Contains(strings.ToLower(strings.Join(hay, "\x00")), q) {
			out = append(out, w)
		}
	}
	return out
}

func matches(r *monitor.Row, q string) bool {
	hay := []string{r.SessionID, r.Candidate, r.Title, r.NodeID, r.State.String(), r.Examiner, r.Input, r.Room, r.LastCandidate}
	for _, a := range r.Alerts {
		hay = append(hay, a.Kind.Badge(), a.Kind.String())
	}
	return strings.Contains(strings.ToLower(strings.Join(hay, "\x00")), q)
}

// order is the selectable rows in screen order.
func (m *Model) order() []*monitor.Row {
	live, finished := m.visible()
	return append(live, finished...)
}

// keepCursor selects the first row when the selection is gone (filtered out, or none yet).
func (m *Model) keepCursor() {
	rows := m.order()
	for _, r := range rows {
		if r.SessionID == m.cursor {
			return
		}
	}
	m.cursor = ""
	if len(rows) > 0 {
		m.cursor = rows[0].SessionID
	}
}

func (m *Model) move(step int) {
	rows := m.order()
	if len(rows) == 0 {
		m.cursor = ""
		return
	}
	i := 0
	for j, r := range rows {
		if r.SessionID == m.cursor {
			i = j
		}
	}
	i = min(max(i+step, 0), len(rows)-1)
	m.cursor = rows[i].SessionID
}

func (m *Model) listKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.filtering {
		switch msg.String() {
		case "enter":
			m.filtering = false
			m.filter.Blur()
			m.keepCursor()
			return nil
		case "esc":
			m.filtering = false
			m.filter.Blur()
			m.filter.SetValue("")
			m.keepCursor()
			return nil
		}
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.keepCursor()
		return cmd
	}
	if m.showHelp {
		if key.Matches(msg, k.Quit) && msg.String() != "q" {
			return tea.Quit
		}
		m.showHelp = false
		return nil
	}
	page := max(m.listHeight()-1, 1)
	m.link = ""
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-page)
	case key.Matches(msg, k.PageDown):
		m.move(page)
	case key.Matches(msg, k.Top):
		m.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.move(1 << 30)
	case key.Matches(msg, k.Filter):
		m.filtering = true
		return m.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		m.filter.SetValue("")
		m.keepCursor()
	case key.Matches(msg, k.Open):
		return m.openSelected()
	case key.Matches(msg, k.Link):
		return m.makeLink()
	case key.Matches(msg, k.Revoke):
		return m.revokeLinks()
	}
	return nil
}

// openSelected builds the selected exam's console and starts loading its history.
func (m *Model) openSelected() tea.Cmd {
	r := m.board.Row(m.cursor)
	if r == nil {
		return nil
	}
	if m.opts.load == nil {
		m.notice = "this control room cannot open exams"
		return nil
	}
	readOnly := m.opts.readOnly || m.opts.backend == nil || r.State.Finished()
	var backend tui.Backend
	if !readOnly {
		b, err := m.opts.backend(r)
		if err != nil {
			m.notice = "open " + r.SessionID + ": " + textsafe.Line(err.Error())
			readOnly = true
		} else {
			backend = b
		}
	}
	input := runtime.InputSource(r.Input)
	if !input.Valid() {
		input = runtime.SourceTyped
	}
	info := tui.Info{Title: r.Title, Examiner: r.Examiner, Input: input, SessionID: r.SessionID,
		ReadOnly: readOnly, Observer: !readOnly}
	opts := append([]tui.Option{tui.WithLogger(m.opts.logger), tui.WithNoColor(m.opts.noColor),
		tui.WithDarkBackground(m.opts.dark), tui.WithClock(m.opts.now)}, m.opts.consoleOp...)
	c, err := tui.New(info, backend, opts...)
	if err != nil {
		m.notice = "open " + r.SessionID + ": " + textsafe.Line(err.Error())
		return nil
	}
	c.Update(tea.WindowSizeMsg{Width: m.width, Height: m.height})
	m.console, m.consoleID, m.consoleRO, m.loading, m.pending, m.consoleSeq = c, r.SessionID, readOnly, true, nil, 0
	m.notice = ""
	id, load := r.SessionID, m.opts.load
	return tea.Batch(c.Init(), func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
		defer cancel()
		evs, err := load(ctx, id)
		return loadedMsg{id: id, events: evs, err: err}
	})
}

// loaded fills the open console with its history, then whatever arrived meanwhile.
func (m *Model) loaded(msg loadedMsg) tea.Cmd {
	if msg.id != m.consoleID || m.console == nil {
		return nil // closed (or another opened) before the history came
	}
	m.loading = false
	if msg.err != nil {
		m.opts.logger.Warn("control room: load exam history", "session", msg.id, "err", msg.err)
		m.notice = "load " + msg.id + ": " + textsafe.Line(msg.err.Error())
	}
	m.feedConsole(msg.events)
	m.feedConsole(m.pending)
	m.pending = nil
	return nil
}

// feedConsole hands the open console the events it has not seen: the history and the live
// stream overlap (a poll may land before or after the history was read), and the console
// must see each event once, in seq order.
func (m *Model) feedConsole(evs []runtime.Event) {
	var fresh []runtime.Event
	for _, ev := range evs {
		if ev.Seq == 0 || ev.Seq > m.consoleSeq {
			fresh = append(fresh, ev)
			m.consoleSeq = max(m.consoleSeq, ev.Seq)
		}
	}
	if len(fresh) > 0 {
		m.console.Update(tui.EventsMsg(fresh))
	}
}

// consoleKey hands keys to the open console; esc at rest closes it, the quit keys quit.
func (m *Model) consoleKey(msg tea.KeyPressMsg) tea.Cmd {
	// In a read-only console at rest, q closes it too, as the console's own q would quit.
	if m.console.Idle() && (key.Matches(msg, m.keys.Back) || (m.consoleRO && msg.String() == "q")) {
		m.closeConsole()
		return nil
	}
	if m.console.IsQuitKey(msg.String()) {
		return tea.Quit
	}
	_, cmd := m.console.Update(msg)
	return cmd
}

func (m *Model) closeConsole() {
	m.console, m.consoleID, m.loading, m.pending = nil, "", false, nil
	m.keepCursor()
}

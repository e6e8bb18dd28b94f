package tui

import (
	"fmt"
	"reflect"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// PaneID names a focusable part of the screen.
type PaneID int

// Focusable parts, in tab order.
const (
	PaneInput PaneID = iota
	PaneTranscript
	PaneEvidence
	PaneGuardrails
	PaneTimers
	PaneDebug
)

var paneNames = [...]string{PaneInput: "input", PaneTranscript: "transcript", PaneEvidence: "evidence",
	PaneGuardrails: "guardrails", PaneTimers: "timers", PaneDebug: "debug"}

func (p PaneID) String() string {
	if p >= 0 && int(p) < len(paneNames) {
		return paneNames[p]
	}
	return fmt.Sprintf("pane(%d)", int(p))
}

// confirmKind is the question the footer is asking, if any.
type confirmKind int

const (
	confirmNone confirmKind = iota
	confirmQuit
	confirmEnd
)

// Model is the console's root model: it owns layout, focus and routing, and hands events to
// the panes. Use it as a pointer; View caches rendered lines inside the panes.
type Model struct {
	info    Info
	backend Backend
	opts    options
	styles  *Styles
	keys    KeyMap
	help    help.Model

	width, height int
	rects         map[PaneID]rect
	single        []PaneID // a screen too short to stack: the panes shown one at a time

	focus     PaneID
	showHelp  bool
	showDebug bool
	confirm   confirmKind

	input      textinput.Model
	adminOpen  bool
	adminMode  runtime.AdminMode
	adminInput textinput.Model

	panes     map[PaneID]pane // every pane of the body, on screen or not (pane.go)
	graph     *graphPane      // the ctrl+g overlay; nil without WithExamGraph
	showGraph bool

	state       runtime.ExamState
	lastEventAt time.Time
	streamEnded bool
	events      int
	lastSeq     int64 // highest seq applied: the replay's position

	replayView replayView

	notice    string
	noticeErr bool

	audio     AudioLevelMsg
	haveAudio bool

	switcher  InputSwitcher // nil when the Backend cannot switch input
	switching bool          // a SwitchInput call is under way

	lastTyping time.Time // when typing was last reported to a TypingReporter (typing.go)
}

// New builds the console. backend may be nil only when info.ReadOnly is set.
func New(info Info, backend Backend, opts ...Option) (*Model, error) {
	if err := info.validate(); err != nil {
		return nil, err
	}
	info.Title, info.Examiner, info.SessionID = cleanText(info.Title), cleanText(info.Examiner), cleanText(info.SessionID)
	if backend == nil && !info.ReadOnly {
		return nil, ErrNilBackend
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.replay != nil && !info.ReadOnly {
		return nil, fmt.Errorf("%w: a replay console must be read-only", ErrInvalidOption)
	}
	m := &Model{info: info, backend: backend, opts: o, keys: o.keys, state: runtime.StateCreated,
		adminMode: runtime.AdminImmediate, rects: map[PaneID]rect{}}
	// The switch-input key exists only for a Backend that can switch; disabled, it neither
	// matches nor shows in the help.
	m.switcher, _ = backend.(InputSwitcher)
	if c, ok := backend.(InputSwitchChecker); ok && m.switcher != nil && !c.CanSwitchInput() {
		m.switcher = nil
	}
	m.keys.SwitchInput.SetEnabled(m.switcher != nil && !info.ReadOnly)
	if info.Notice != "" {
		m.setNotice(info.Notice, true)
	}
	m.help = help.New()
	m.input = textinput.New()
	m.input.Prompt = "answer> "
	m.setPlaceholder()
	m.input.CharLimit = 2000
	m.adminInput = textinput.New()
	m.adminInput.Prompt = "instruction> "
	m.adminInput.CharLimit = 1000
	m.setStyles(o.dark)

	m.panes = m.newPanes(m.styles)
	if m.info.Notice != "" {
		// The footer's notice gives way to the next one; the transcript keeps it, so what
		// was said at the start (why answers are typed) stays readable.
		m.panes[PaneTranscript].(*transcriptPane).add(turn{kind: turnSystem, text: m.info.Notice}, 0)
	}
	if o.graph != nil {
		m.graph = newGraphPane(o.graph, m.styles)
	}
	m.keys.Graph.SetEnabled(m.graph != nil)

	if h, ok := backend.(Historian); ok {
		m.Apply(h.History()...)
	}
	m.syncReplay()
	if info.ReadOnly {
		m.focus = PaneTranscript
	} else {
		m.focus = PaneInput
		m.input.Focus()
	}
	return m, nil
}

// setStyles rebuilds the styles in place, so the panes (which hold the pointer) follow, and
// drops every cached line.
func (m *Model) setStyles(dark bool) {
	st := NewStyles(m.opts.palette, dark, m.opts.noColor)
	if m.styles == nil {
		m.styles = &st
	} else {
		*m.styles = st
		m.invalidate()
	}
	m.help.Styles = st.Help
	m.input.SetStyles(st.Input)
	m.adminInput.SetStyles(st.Input)
}

// invalidate drops cached lines after a style change.
func (m *Model) invalidate() {
	for _, p := range m.panes {
		p.invalidate()
	}
}

// Init asks for the terminal's background and starts the clock.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if !m.opts.forceDark {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	cmds = append(cmds, m.tickCmd())
	return tea.Batch(cmds...)
}

func (m *Model) tickCmd() tea.Cmd {
	if m.opts.tick <= 0 {
		return nil
	}
	return tea.Tick(m.opts.tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// now is the instant the timers are read at.
func (m *Model) now() time.Time {
	if m.opts.eventClock && !m.lastEventAt.IsZero() {
		return m.lastEventAt
	}
	return m.opts.clock()
}

// Apply feeds events to the panes directly, outside a running program (screenshots, tests).
func (m *Model) Apply(events ...runtime.Event) {
	for _, ev := range events {
		m.applyEvent(ev)
	}
}

func (m *Model) applyEvent(ev runtime.Event) {
	pl, err := ev.Decode()
	if err != nil {
		m.opts.logger.Warn("console: undecodable event", "event", ev.Event, "seq", ev.Seq, "err", err)
		m.setNotice(fmt.Sprintf("undecodable %s event (seq %d)", ev.Event, ev.Seq), true)
		return
	}
	if textsafe.JSONUnsafe(ev.Payload) {
		cleanStrings(reflect.ValueOf(pl))
	}
	m.events++
	m.lastSeq = max(m.lastSeq, ev.Seq)
	if ev.Timestamp.After(m.lastEventAt) {
		m.lastEventAt = ev.Timestamp
	}
	if m.info.SessionID == "" {
		m.info.SessionID = cleanText(ev.SessionID)
	}
	for _, id := range paneOrder {
		m.panes[id].apply(ev, pl)
	}
	if m.graph != nil {
		m.graph.apply(ev, pl)
	}
	m.applyReload(pl)
	defer m.markOver()
	switch v := pl.(type) {
	case *runtime.ExamStatePayload:
		m.state = v.State
	case *runtime.ExamCompletedPayload:
		m.state = v.State
	case *runtime.SystemErrorPayload:
		m.setNotice(fmt.Sprintf("system error %s: %s", v.Code, oneLine(v.Message)), true)
	case *runtime.CandidatePresencePayload:
		m.setNotice(v.Summary(), v.Status == runtime.PresenceLeft)
	case *runtime.ExaminerSwitchedPayload:
		m.setNotice(examinerSwitchedText(v), true)
		if v.To != "" && !m.info.Observer {
			m.info.Examiner = cleanText(v.To) + " (fallback from " + cleanText(v.From) + ")"
		}
	}
}

// setNotice shows s in the footer; it may quote an event or a backend error, so it is cleaned.
func (m *Model) setNotice(s string, isErr bool) { m.notice, m.noticeErr = cleanText(s), isErr }

// running reports whether an exam is under way (quitting then needs confirmation).
func (m *Model) running() bool {
	switch m.state {
	case runtime.StateScaffolding, runtime.StateReady, runtime.StateInProgress, runtime.StatePaused:
		return true
	}
	return false
}

// State is the exam state as the console last saw it.
func (m *Model) State() runtime.ExamState { return m.state }

// Focus is the part of the screen that has focus.
func (m *Model) Focus() PaneID { return m.focus }

// markOver turns the input line's invitation into directions once the exam has ended.
func (m *Model) markOver() {
	if m.state.Terminal() {
		m.setPlaceholder()
	}
}

// setPlaceholder says what the input line is for: typing answers, or (while answers are
// spoken) typing as well as speaking; after the exam, how to leave.
func (m *Model) setPlaceholder() {
	switch {
	case m.state.Terminal():
		m.input.Placeholder = "the exam is " + m.state.String() + " · ctrl+c quits"
	case m.info.Observer:
		where := "in the room"
		if m.info.Input != runtime.SourceRoom {
			where = "in their own session" // a local exam supervised from examtui monitor
		}
		m.input.Placeholder = "watching: the candidate answers " + where + " · " + m.keys.Instruct.Help().Key + " sends the examiner an instruction"
	case m.info.Input == runtime.SourceMic:
		hint := "answers are spoken into the microphone; typing works too"
		if m.keys.SwitchInput.Enabled() {
			hint += " · " + m.keys.SwitchInput.Help().Key + " switches to typed"
		}
		m.input.Placeholder = hint
	case m.info.Input == runtime.SourceRoom:
		m.input.Placeholder = "the candidate answers in the room; typing works too"
	default:
		m.input.Placeholder = "type the candidate's answer, enter to send"
	}
}

// InputMode is the input mode the status line shows.
func (m *Model) InputMode() runtime.InputSource { return m.info.Input }

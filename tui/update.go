package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// Update routes messages: events to the panes, keys by focus (the input line owns printable
// keys; controls are ctrl combinations), Backend calls out to tea.Cmds.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.BackgroundColorMsg:
		if !m.opts.forceDark {
			m.setStyles(msg.IsDark())
		}
		return m, nil
	case EventsMsg:
		for _, ev := range msg {
			m.applyEvent(ev)
		}
		m.relayoutForContent()
		m.syncReplay()
		return m, nil
	case StreamEndedMsg:
		m.streamEnded = true
		switch {
		case m.opts.replay != nil:
			m.syncReplay()
			m.setNotice("replay finished", false)
		case !m.state.Terminal():
			m.setNotice("event stream ended", false)
		}
		return m, nil
	case AudioLevelMsg:
		m.audio, m.haveAudio = msg, true
		return m, nil
	case backendResultMsg:
		if msg.err != nil {
			m.opts.logger.Warn("console: backend call failed", "op", msg.op, "err", msg.err)
			m.setNotice(fmt.Sprintf("%s failed: %v", msg.op, msg.err), true)
		} else {
			m.setNotice(msg.op+" sent", false)
		}
		return m, nil
	case inputSwitchedMsg:
		m.switching = false
		switch {
		case msg.err != nil:
			m.opts.logger.Warn("console: switching input failed", "err", msg.err)
			m.setNotice(fmt.Sprintf("switching input failed: %v", msg.err), true)
		case !msg.mode.Valid():
			m.opts.logger.Warn("console: backend switched to an unknown input mode", "mode", msg.mode)
			m.setNotice(fmt.Sprintf("switching input failed: %v: %q", ErrInvalidInput, msg.mode), true)
		default:
			m.info.Input = msg.mode
			m.setPlaceholder()
			m.setNotice("input: "+msg.mode.String(), false)
		}
		return m, nil
	case tickMsg:
		return m, m.tickCmd()
	case tea.MouseWheelMsg:
		mouse := msg.Mouse()
		if id, ok := m.paneAt(mouse.X, mouse.Y); ok {
			switch mouse.Button {
			case tea.MouseWheelUp:
				m.scrollPane(id, 3)
			case tea.MouseWheelDown:
				m.scrollPane(id, -3)
			}
		}
		return m, nil
	case tea.PasteMsg:
		return m, m.forwardToInput(msg)
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	// Anything else (cursor blink and the like) belongs to the focused text input.
	return m, m.forwardToInput(msg)
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.help.SetWidth(w)
	m.input.SetWidth(max(w-len(m.input.Prompt)-1, 1))
	m.adminInput.SetWidth(max(w-len(m.adminInput.Prompt)-1, 1))
	m.layout()
	m.ensureFocusVisible()
}

// relayoutForContent gives the Timers and Guardrails panes room as their content arrives:
// the plan, the first interceptions. Laying out is cheap (it measures the Timers lines and at
// most a few Guardrails entries), so it is done for every batch of events.
func (m *Model) relayoutForContent() {
	if m.width == 0 {
		return
	}
	m.layout()
	m.ensureFocusVisible()
}

func (m *Model) ensureFocusVisible() {
	if m.focus == PaneInput {
		return
	}
	if _, ok := m.rects[m.focus]; !ok {
		m.setFocus(m.focusOrder()[0])
	}
}

func (m *Model) forwardToInput(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case m.adminOpen:
		m.adminInput, cmd = m.adminInput.Update(msg)
	case m.focus == PaneInput && !m.info.ReadOnly:
		before := m.input.Value()
		m.input, cmd = m.input.Update(msg)
		if tc := m.typingCmd(before); tc != nil {
			cmd = tea.Batch(cmd, tc)
		}
	}
	return cmd
}

func (m *Model) setFocus(id PaneID) {
	m.focus = id
	if id == PaneInput && !m.info.ReadOnly {
		m.input.Focus()
	} else {
		m.input.Blur()
	}
	// A narrow, short screen shows only the focused pane (the transcript while typing).
	if m.width > 0 && m.width < narrowWidth {
		m.layout()
	}
}

func (m *Model) cycleFocus(step int) {
	order := m.focusOrder()
	if len(order) == 0 {
		return
	}
	i := 0
	for j, id := range order {
		if id == m.focus {
			i = j
		}
	}
	m.setFocus(order[(i+step+len(order))%len(order)])
}

// overlayKey is a key while an overlay (the help, the exam graph) covers the console: quit
// still asks to quit, one of the overlay's close keys sets *open to false, and every other key
// is swallowed so nothing behind the overlay moves.
func (m *Model) overlayKey(msg tea.KeyPressMsg, open *bool, closeKeys ...key.Binding) tea.Cmd {
	if key.Matches(msg, m.keys.Quit) {
		return m.askQuit()
	}
	if key.Matches(msg, closeKeys...) {
		*open = false
	}
	return nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case m.confirm != confirmNone:
		return m.handleConfirm(msg)
	case m.showHelp:
		return m.overlayKey(msg, &m.showHelp, k.Help, k.PaneHelp, k.Back, k.PaneQuit)
	case m.showGraph:
		return m.overlayKey(msg, &m.showGraph, k.Graph, k.Back, k.PaneQuit, k.Debug)
	case m.adminOpen:
		return m.handleAdminKey(msg)
	}

	// A replay's keys come first: its ctrl+p steers the player, not the (absent) exam.
	if cmd, ok := m.handleReplayKey(msg); ok {
		return cmd
	}

	// Controls: ctrl combinations and function keys, live whatever has focus.
	switch {
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return nil
	case key.Matches(msg, k.FocusNext):
		m.cycleFocus(1)
		return nil
	case key.Matches(msg, k.FocusPrev):
		m.cycleFocus(-1)
		return nil
	case key.Matches(msg, k.Graph):
		m.showGraph = true
		return nil
	case key.Matches(msg, k.Debug):
		m.showDebug = !m.showDebug
		m.layout()
		if m.showDebug {
			m.setFocus(PaneDebug)
		}
		m.ensureFocusVisible()
		return nil
	case key.Matches(msg, k.Pause):
		action := runtime.ControlPause
		if m.state == runtime.StatePaused {
			action = runtime.ControlResume
		}
		return m.control(action)
	case key.Matches(msg, k.SwitchInput):
		return m.switchInput()
	case key.Matches(msg, k.Skip):
		return m.control(runtime.ControlSkip)
	case key.Matches(msg, k.Advance):
		return m.control(runtime.ControlAdvance)
	case key.Matches(msg, k.Promote):
		return m.control(runtime.ControlPromote)
	case key.Matches(msg, k.End):
		if m.refuseControl(runtime.ControlEnd.String()) {
			return nil
		}
		m.confirm = confirmEnd
		return nil
	case key.Matches(msg, k.Instruct, k.Say):
		if m.refuseControl("instruction") {
			return nil
		}
		m.adminOpen = true
		if key.Matches(msg, k.Say) {
			m.adminMode = runtime.AdminSay
		} else if m.adminMode == runtime.AdminSay {
			m.adminMode = runtime.AdminImmediate // ctrl+o opens an instruction, never a line to say
		}
		m.setAdminPrompt()
		m.input.Blur()
		return m.adminInput.Focus()
	}

	if m.focus == PaneInput {
		switch {
		case key.Matches(msg, k.Send):
			return m.submit()
		case msg.String() == "up", msg.String() == "down", key.Matches(msg, k.PageUp, k.PageDown):
			// The one-line input has no use for these: they scroll the transcript.
			m.scrollKey(PaneTranscript, msg)
			return nil
		case key.Matches(msg, k.PaneHelp) && m.input.Value() == "":
			// An empty answer line has no use for a question mark yet: it is the help key, as
			// the footer says. Once the line holds text, ? is typed.
			m.showHelp = true
			return nil
		case key.Matches(msg, k.Follow):
			// end keeps its place in the line (the cursor goes to its end) and brings the
			// transcript back to the newest line, following the exam again.
			m.scrollPane(PaneTranscript, -(1 << 30))
		}
		return m.forwardToInput(msg)
	}

	// A pane has focus: letters are navigation.
	switch {
	case key.Matches(msg, k.Back):
		if !m.info.ReadOnly {
			m.setFocus(PaneInput)
		}
	case key.Matches(msg, k.PaneHelp):
		m.showHelp = true
	case key.Matches(msg, k.PaneQuit):
		return m.askQuit()
	default:
		m.scrollKey(m.focus, msg)
	}
	return nil
}

func (m *Model) scrollKey(id PaneID, msg tea.KeyPressMsg) {
	k := m.keys
	page := max(m.rects[id].h-3, 1)
	switch {
	case key.Matches(msg, k.Up):
		m.scrollPane(id, 1)
	case key.Matches(msg, k.Down):
		m.scrollPane(id, -1)
	case key.Matches(msg, k.PageUp):
		m.scrollPane(id, page)
	case key.Matches(msg, k.PageDown):
		m.scrollPane(id, -page)
	case key.Matches(msg, k.Top):
		m.scrollPane(id, 1<<30)
	case key.Matches(msg, k.Bottom):
		m.scrollPane(id, -(1 << 30))
	}
}

// scrollPane moves a pane's view: positive n shows older content.
func (m *Model) scrollPane(id PaneID, n int) {
	if p, ok := m.panes[id]; ok {
		p.scrollBy(n)
	}
}

func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	if m.refuseWhenOver("answer") {
		return nil // the text stays in the line: nothing was lost
	}
	m.input.Reset()
	b := m.backend
	m.setNotice("sending…", false)
	return func() tea.Msg { return backendResultMsg{op: "answer", err: b.SubmitText(text)} }
}

func (m *Model) control(action runtime.ControlAction) tea.Cmd {
	if m.refuseControl(action.String()) {
		return nil
	}
	b := m.backend
	m.setNotice(action.String()+"…", false)
	return func() tea.Msg { return backendResultMsg{op: action.String(), err: b.Control(action)} }
}

// switchInput asks the Backend to toggle typed and spoken answers. The key is disabled for a
// Backend that cannot, so this runs only with a switcher.
func (m *Model) switchInput() tea.Cmd {
	if m.switcher == nil {
		return nil
	}
	if m.refuseWhenOver("input switch") {
		return nil
	}
	if m.switching {
		m.setNotice("switching input…", false)
		return nil
	}
	m.switching = true
	s := m.switcher
	m.setNotice("switching input…", false)
	return func() tea.Msg {
		mode, err := s.SwitchInput()
		return inputSwitchedMsg{mode: mode, err: err}
	}
}

func (m *Model) askQuit() tea.Cmd {
	if m.running() && !m.info.ReadOnly {
		m.confirm = confirmQuit
		return nil
	}
	return tea.Quit
}

func (m *Model) handleConfirm(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Yes):
		c := m.confirm
		m.confirm = confirmNone
		if c == confirmQuit {
			return tea.Quit
		}
		return m.control(runtime.ControlEnd)
	case key.Matches(msg, m.keys.No):
		m.confirm = confirmNone
	case key.Matches(msg, m.keys.Quit) && m.confirm == confirmQuit:
		// A second ctrl+c means it.
		m.confirm = confirmNone
		return tea.Quit
	}
	return nil
}

func (m *Model) handleAdminKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.askQuit()
	case key.Matches(msg, m.keys.Back):
		m.closeAdmin()
		return nil
	case key.Matches(msg, m.keys.InstructMode):
		m.adminMode = nextAdminMode(m.adminMode)
		m.setAdminPrompt()
		return nil
	case key.Matches(msg, m.keys.Send):
		text := strings.TrimSpace(m.adminInput.Value())
		if text == "" {
			return nil
		}
		mode, b := m.adminMode, m.backend
		m.closeAdmin()
		m.setNotice("instruction ("+mode.String()+")…", false)
		return func() tea.Msg {
			return backendResultMsg{op: "instruction (" + mode.String() + ")", err: b.Admin(mode, text)}
		}
	}
	var cmd tea.Cmd
	m.adminInput, cmd = m.adminInput.Update(msg)
	return cmd
}

// nextAdminMode is the instruction box's next mode (tab): immediate and queued in turn, and
// from a line to say back to an instruction. tab never makes a line to say: only ctrl+l does,
// so text typed as an instruction cannot be spoken by a stray key.
func nextAdminMode(mode runtime.AdminMode) runtime.AdminMode {
	if mode == runtime.AdminImmediate {
		return runtime.AdminQueued
	}
	return runtime.AdminImmediate
}

// setAdminPrompt names what the box will send, so a line to say never looks like an instruction.
func (m *Model) setAdminPrompt() {
	m.adminInput.Prompt = "instruction> "
	if m.adminMode == runtime.AdminSay {
		m.adminInput.Prompt = "say> "
	}
}

func (m *Model) closeAdmin() {
	m.adminOpen = false
	m.adminInput.Reset()
	m.adminInput.Blur()
	if m.focus == PaneInput {
		m.input.Focus()
	}
}

// refuseControl keeps a control (op) from being sent from a read-only console, or to an exam
// that is over (refuseWhenOver), saying why in the footer; it reports whether it refused.
func (m *Model) refuseControl(op string) bool {
	if m.info.ReadOnly {
		m.setNotice(ErrReadOnly.Error(), true)
		return true
	}
	return m.refuseWhenOver(op)
}

// refuseWhenOver keeps calls away from a controller whose exam has ended: it would refuse
// them anyway, and saying so here keeps the typed text and names the way out.
func (m *Model) refuseWhenOver(op string) bool {
	if !m.state.Terminal() {
		return false
	}
	m.setNotice(fmt.Sprintf("the exam is %s: %s not sent · ctrl+c quits", m.state, op), true)
	return true
}

package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds every binding. Controls use ctrl combinations (or function keys) so they work
// while the input line owns printable keys; single letters act only when a pane has focus.
type KeyMap struct {
	Send, FocusNext, FocusPrev, Back key.Binding
	Up, Down, PageUp, PageDown       key.Binding
	Top, Bottom                      key.Binding
	// Follow, in the answer line, brings the transcript back to its newest line.
	Follow                    key.Binding
	Pause, Skip, Advance, End key.Binding
	Instruct, InstructMode    key.Binding
	// Say opens the instruction box as a line to say: the examiner's own words, spoken as
	// typed (an instruction is guidance and is never read out).
	Say key.Binding
	// Promote runs the oldest queued instruction now, as an immediate one.
	Promote           key.Binding
	Debug, Help, Quit key.Binding
	// Graph opens the exam graph overlay; New disables it unless the console has the graph.
	Graph   key.Binding
	Yes, No key.Binding
	// SwitchInput toggles typed and spoken answers. New disables it unless the Backend
	// implements InputSwitcher, which also hides it from the help.
	SwitchInput key.Binding
	// PaneHelp and PaneQuit are the letter forms, live only while a pane has focus.
	PaneHelp, PaneQuit key.Binding
	// Replay keys, live only in a replay console (WithReplay).
	ReplayFaster, ReplaySlower, ReplayPause, ReplayStep key.Binding
}

// DefaultKeyMap returns the console's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Send:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send answer")),
		FocusNext:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		FocusPrev:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Back:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to input")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "oldest")),
		Bottom:       key.NewBinding(key.WithKeys("end", "ctrl+end", "G"), key.WithHelp("end/G", "newest")),
		Follow:       key.NewBinding(key.WithKeys("end", "ctrl+end"), key.WithHelp("end", "transcript: follow the newest")),
		Pause:        key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "pause/resume")),
		Skip:         key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "skip node")),
		Advance:      key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "advance node")),
		End:          key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "end exam")),
		Instruct:     key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "examiner instruction")),
		InstructMode: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "instruction: immediate/queued")),
		Say:          key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "say a line to the candidate")),
		Promote:      key.NewBinding(key.WithKeys("ctrl+y"), key.WithHelp("ctrl+y", "promote queued instruction")),
		Debug:        key.NewBinding(key.WithKeys("ctrl+r", "f2"), key.WithHelp("ctrl+r/f2", "debug view")),
		SwitchInput:  key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "typed/spoken input")),
		Graph:        key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "exam graph")),
		Help:         key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1/?", "help")),
		Quit:         key.NewBinding(key.WithKeys("ctrl+c", "ctrl+q"), key.WithHelp("ctrl+c/ctrl+q", "quit")),
		Yes:          key.NewBinding(key.WithKeys("y", "Y", "enter"), key.WithHelp("y", "confirm")),
		No:           key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel")),
		PaneHelp:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		PaneQuit:     key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ReplayFaster: key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		ReplaySlower: key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		ReplayPause:  key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause/resume replay")),
		ReplayStep:   key.NewBinding(key.WithKeys("n", "right"), key.WithHelp("n/→", "step one event")),
	}
}

// ShortHelp is the footer's one-line hint.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.FocusNext, k.Pause, k.Instruct, k.Debug, k.Quit}
}

// FullHelp is the help overlay, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.FocusNext, k.FocusPrev, k.Back, k.Help, k.Quit},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Pause, k.Skip, k.Advance, k.End, k.Instruct, k.Say, k.InstructMode, k.Promote, k.SwitchInput, k.Debug, k.Graph},
	}
}

// ReplayShortHelp is the footer's hint in a replay console.
func (k KeyMap) ReplayShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.ReplayPause, k.ReplayFaster, k.ReplaySlower, k.ReplayStep, k.FocusNext, k.PaneQuit}
}

// ReplayFullHelp is the help overlay in a replay console: the exam controls give way to the
// replay's.
func (k KeyMap) ReplayFullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.FocusNext, k.FocusPrev, k.Help, k.Quit, k.PaneQuit},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.ReplayPause, k.ReplayFaster, k.ReplaySlower, k.ReplayStep, k.Debug, k.Graph},
	}
}

func (m *Model) shortHelp() []key.Binding {
	if m.opts.replay != nil {
		return m.keys.ReplayShortHelp()
	}
	return m.keys.ShortHelp()
}

func (m *Model) fullHelp() [][]key.Binding {
	if m.opts.replay != nil {
		return m.keys.ReplayFullHelp()
	}
	return m.keys.FullHelp()
}

package markconsole

import "charm.land/bubbles/v2/key"

// KeyMap holds the marking console's bindings.
type KeyMap struct {
	Up, Down, Lower, Higher, Level key.Binding
	Justify, Save, Cancel          key.Binding
	Evidence, PrevEvidence, Play   key.Binding
	Panel, Next                    key.Binding
	ScrollUp, ScrollDown           key.Binding
	Help, Quit                     key.Binding
}

// DefaultKeyMap returns the marking console's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous criterion")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next criterion")),
		Lower:        key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "level down")),
		Higher:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "level up")),
		Level:        key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("0-9", "level by number (0 none)")),
		Justify:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "justify and save")),
		Save:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save the mark")),
		Cancel:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Evidence:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next evidence: jump to its turn")),
		PrevEvidence: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous evidence")),
		Play:         key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "play the turn")),
		Panel:        key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "run the model panel")),
		Next:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next session")),
		ScrollUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "transcript up")),
		ScrollDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "transcript down")),
		Help:         key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?", "all keys")),
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the footer's hint.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Higher, k.Justify, k.Evidence, k.Play, k.Next, k.Help, k.Quit}
}

// FullHelp is the help overlay.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Lower, k.Higher, k.Level},
		{k.Justify, k.Cancel, k.Evidence, k.PrevEvidence, k.Play},
		{k.Panel, k.Next, k.ScrollUp, k.ScrollDown, k.Help, k.Quit},
	}
}

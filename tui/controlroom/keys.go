package controlroom

import "charm.land/bubbles/v2/key"

// KeyMap holds the control room's bindings. The embedded exam console keeps its own.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open, Back, Filter, ClearFilter         key.Binding
	Link, Revoke                            key.Binding
	Help, Quit                              key.Binding
}

// DefaultKeyMap returns the control room's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous exam")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next exam")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "most urgent")),
		Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
		Open:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the exam's console")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the list")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Link:        key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "candidate's join link")),
		Revoke:      key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "revoke the candidate's join links")),
		Help:        key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?", "all keys")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c", "ctrl+q"), key.WithHelp("q/ctrl+c", "quit")),
	}
}

// ShortHelp is the footer's hint.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Open, k.Filter, k.Help, k.Quit}
}

// FullHelp is the help overlay.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Back, k.Filter, k.ClearFilter, k.Link, k.Revoke, k.Help, k.Quit},
	}
}

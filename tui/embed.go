package tui

// Idle reports whether the console is at rest: no question asked, no help shown, no
// instruction being typed, and the focus where esc has nothing left to undo. A host that embeds
// the console (the control room) takes esc back for itself only then.
func (m *Model) Idle() bool {
	return m.confirm == confirmNone && !m.showHelp && !m.adminOpen && (m.focus == PaneInput || m.info.ReadOnly)
}

// IsQuitKey reports whether the console would treat msg as its quit key, so a host can close
// the embedded console instead of the whole program.
func (m *Model) IsQuitKey(s string) bool {
	for _, k := range m.keys.Quit.Keys() {
		if k == s {
			return true
		}
	}
	return false
}

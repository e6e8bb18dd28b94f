package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// TypingReporter is implemented by a Backend that wants to know the candidate is typing an
// answer (a local exam): typing is candidate activity, so the examiner's silence check-ins do
// not interrupt someone who is writing.
type TypingReporter interface {
	Typing() error
}

// typingInterval bounds how often typing is reported: once a second is enough for timers
// counted in seconds.
const typingInterval = time.Second

// typingCmd reports typing when the answer line changed, at most once per typingInterval; the
// report runs as a tea.Cmd, outside Update.
func (m *Model) typingCmd(before string) tea.Cmd {
	now := time.Now()
	tr, ok := m.backend.(TypingReporter)
	if !ok || m.input.Value() == before || now.Sub(m.lastTyping) < typingInterval {
		return nil
	}
	m.lastTyping = now
	return func() tea.Msg {
		_ = tr.Typing() // best effort: a refused report changes nothing the candidate sees
		return nil
	}
}

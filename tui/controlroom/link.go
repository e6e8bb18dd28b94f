package controlroom

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/textsafe"
)

// linkMsg brings a candidate link made for an exam's room.
type linkMsg struct {
	room string
	url  string
	err  error
}

// linkTimeout bounds making one link (a store write).
const linkTimeout = 10 * time.Second

// makeLink asks for a join link for the selected exam's candidate; the answer comes back as a
// linkMsg, since making one writes to the store.
func (m *Model) makeLink() tea.Cmd {
	r := m.board.Row(m.cursor)
	switch {
	case r == nil:
		return nil
	case m.opts.link == nil:
		m.notice = "no candidate server for links: set serve.url in the config file or EXAMTUI_SERVE_URL (docs/candidate.md)"
		return nil
	case r.Room == "":
		m.notice = "this exam does not run in a LiveKit room: there is no link to give"
		return nil
	case r.State.Finished():
		m.notice = "this exam has finished: there is no link to give"
		return nil
	}
	row := *r
	f := m.opts.link
	m.notice = ""
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), linkTimeout)
		defer cancel()
		url, err := f(ctx, &row)
		return linkMsg{room: row.Room, url: url, err: err}
	}
}

// linked shows the new link on the footer, the URL first and unstyled so it copies whole, and
// puts it on the clipboard where the terminal allows (OSC 52).
func (m *Model) linked(msg linkMsg) tea.Cmd {
	if msg.err != nil {
		m.opts.logger.Warn("control room: candidate link", "room", msg.room, "err", msg.err)
		m.notice = "candidate link for room " + msg.room + ": " + textsafe.Line(msg.err.Error())
		return nil
	}
	m.link = fmt.Sprintf("%s  (one-time link for room %s's candidate, copied to the clipboard where the terminal allows)", msg.url, msg.room)
	return tea.SetClipboard(msg.url)
}

package controlroom

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/monitor"
)

// selectedRoomRow is the selected exam when it runs in a LiveKit room and the control room has a
// candidate server (server); otherwise nil, with the notice saying why (noRoom for an exam
// without a room).
func (m *Model) selectedRoomRow(server bool, noRoom string) *monitor.Row {
	r := m.board.Row(m.cursor)
	switch {
	case r == nil:
		return nil
	case !server:
		m.notice = "no candidate server for links: set serve.url in the config file or EXAMTUI_SERVE_URL (docs/candidate.md)"
		return nil
	case r.Room == "":
		m.notice = noRoom
		return nil
	}
	return r
}

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
	r := m.selectedRoomRow(m.opts.link != nil, "this exam does not run in a LiveKit room: there is no link to give")
	switch {
	case r == nil:
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

// revokedMsg says how many links of a room were revoked.
type revokedMsg struct {
	room string
	n    int
	err  error
}

// revokeLinks withdraws the selected exam's candidate's join links (a lost or stolen one): the
// answer comes back as a revokedMsg, since revoking writes to the store.
func (m *Model) revokeLinks() tea.Cmd {
	r := m.selectedRoomRow(m.opts.revoke != nil, "this exam does not run in a LiveKit room: it has no join links")
	if r == nil {
		return nil
	}
	row := *r
	f := m.opts.revoke
	m.notice = ""
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), linkTimeout)
		defer cancel()
		n, err := f(ctx, &row)
		return revokedMsg{room: row.Room, n: n, err: err}
	}
}

func (m *Model) revoked(msg revokedMsg) {
	if msg.err != nil {
		m.opts.logger.Warn("control room: revoke candidate links", "room", msg.room, "err", msg.err)
		m.notice = "revoke the links of room " + msg.room + ": " + textsafe.Line(msg.err.Error())
		return
	}
	m.opts.logger.Info("control room: candidate links revoked", "room", msg.room, "count", msg.n)
	m.notice = fmt.Sprintf("%d join link(s) of room %s revoked: the browsers they let in get no new token; l gives a new link", msg.n, textsafe.Line(msg.room))
}

package controlroom

import (
	"strings"
	"time"

	"github.com/examtui/examtui/monitor"
)

// waitingState is the state column of a room dispatched and not started.
const waitingState = "not started"

// waitingLine draws a room whose exam was dispatched and has not started in the exams'
// columns: who waits there, the room and how long since the dispatch where an exam shows
// its node and the time in it (the columns a narrow screen keeps), the state and its alert.
func (m *Model) waitingLine(cols []column, w *monitor.Waiting, now time.Time) string {
	st := m.styles
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		var cell string
		switch c.id {
		case colCandidate:
			cell = w.Candidate
			if cell == "" {
				cell = st.Muted.Render("(nobody yet)")
			}
		case colNode:
			cell = w.Room
		case colNodeTime:
			cell = fmtDur(w.Age(now))
			if w.Alert != nil {
				cell = st.Warn.Render(cell)
			}
		case colInput:
			cell = "room"
		case colState:
			cell = st.Warn.Render(waitingState)
		case colAlerts:
			if w.Alert != nil {
				cell = m.badges([]monitor.Alert{*w.Alert}, c.w)
			}
		case colLast:
			cell = st.Muted.Render("dispatched " + w.Since.Local().Format("15:04:05") + "; no exam bot has joined")
			if w.Rejected != "" {
				cell = st.Warn.Render("rejected by the worker: " + w.Rejected)
			}
		}
		b.WriteString(pad(cell, c.w))
	}
	return b.String()
}

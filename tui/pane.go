package tui

import "github.com/examtui/examtui/runtime"

// pane is one bordered part of the console's body. The root model holds its panes by id and
// knows nothing of what is inside them: it sizes them, hands them every event, scrolls them and
// asks for their lines. Each pane owns its caches.
type pane interface {
	// title and badge are set in the pane's top border; badge may be empty.
	title() string
	badge() string
	// setSize gives the pane its inner size, borders excluded: zero while it is off screen.
	setSize(width, height int)
	// apply takes one decoded event; a pane ignores what it does not show.
	apply(ev runtime.Event, pl runtime.Payload)
	// view renders the pane's inner lines at its size, top to bottom, at most height of them.
	view() []string
	// scrollBy moves the view n lines: positive shows older content, negative newer.
	scrollBy(n int)
	// invalidate drops every cached line, after a change of styles.
	invalidate()
}

// contentSizer is a pane whose place on the screen follows how much it has to show.
type contentSizer interface {
	// contentRows counts the lines the pane would show at width, stopping at limit.
	contentRows(width, limit int) int
}

// paneSize is a pane's inner size, kept for view and for what apply does to the scroll
// position; embedded, it gives a pane its setSize.
type paneSize struct{ width, height int }

func (s *paneSize) setSize(width, height int) { s.width, s.height = width, height }

// paneOrder lists the body's panes in tab order; events reach them in this order too.
var paneOrder = []PaneID{PaneTranscript, PaneEvidence, PaneGuardrails, PaneTimers, PaneDebug}

// newPanes builds one of each pane, all rendering with st.
func (m *Model) newPanes(st *Styles) map[PaneID]pane {
	return map[PaneID]pane{
		PaneTranscript: newTranscriptPane(st, m.opts.minConf),
		PaneEvidence:   newEvidencePane(st),
		PaneGuardrails: newGuardrailsPane(st),
		PaneTimers:     newTimersPane(st, m.now),
		PaneDebug:      newDebugPane(st),
	}
}

// sizePanes tells every pane its inner size from the layout: zero for a pane off screen.
func (m *Model) sizePanes() {
	for _, id := range paneOrder {
		w, h := 0, 0
		if r, ok := m.rects[id]; ok {
			w, h = max(r.w-2, 0), max(r.h-2, 0)
		}
		m.panes[id].setSize(w, h)
	}
}

// contentRows asks a pane how many lines it would show at width, at most limit; a pane that
// cannot say wants limit.
func (m *Model) contentRows(id PaneID, width, limit int) int {
	if s, ok := m.panes[id].(contentSizer); ok {
		return s.contentRows(width, limit)
	}
	return limit
}

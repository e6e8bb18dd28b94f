package tui

// rect is a pane's place on the screen, borders included.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// Layout thresholds.
const (
	narrowWidth = 100 // below this, panes stack
	wideWidth   = 160 // from this, three columns
	minPaneRows = 3   // a bordered pane with one line of content
)

// bodyTop and footer sizes: a status line above, a footer line and the input line below.
func (m *Model) bodyHeight() int {
	h := m.height - 2
	if !m.info.ReadOnly {
		h--
	}
	return max(h, 0)
}

// layout places the visible panes. Wide screens get columns (two, or three from 160 cells);
// narrow ones stack the panes with the Timers pane compact on top.
func (m *Model) layout() {
	defer m.sizePanes()
	m.rects = map[PaneID]rect{}
	m.single = nil
	w, h := m.width, m.bodyHeight()
	if w < 10 || h < minPaneRows {
		return
	}
	const top = 1
	timersWant := m.contentRows(PaneTimers, w, h/2-2) + 2

	switch {
	case w < narrowWidth:
		m.layoutStacked(w, h, top)
	case w >= wideWidth && !m.showDebug:
		left := w * 45 / 100
		mid := w * 30 / 100
		right := w - left - mid
		m.rects[PaneTranscript] = rect{0, top, left, h}
		m.rects[PaneEvidence] = rect{left, top, mid, h}
		th := max(min(timersWant, h-minPaneRows), minPaneRows)
		m.rects[PaneTimers] = rect{left + mid, top, right, th}
		if h-th >= minPaneRows {
			m.rects[PaneGuardrails] = rect{left + mid, top + th, right, h - th}
		}
	default:
		left := w * 55 / 100
		right := w - left
		m.rects[PaneTranscript] = rect{0, top, left, h}
		if m.showDebug {
			m.rects[PaneDebug] = rect{left, top, right, h}
			return
		}
		th := max(min(timersWant, h-2*minPaneRows), minPaneRows)
		rest := h - th
		m.rects[PaneTimers] = rect{left, top, right, th}
		if rest >= 2*minPaneRows {
			// Guardrails takes what its entries need, up to two fifths; the evidence ledger,
			// which grows all exam long, gets the rest.
			most := max(rest*2/5, minPaneRows)
			gh := min(max(m.contentRows(PaneGuardrails, right-2, most)+2, minPaneRows+1), most)
			eh := rest - gh
			m.rects[PaneEvidence] = rect{left, top + th, right, eh}
			m.rects[PaneGuardrails] = rect{left, top + th + eh, right, gh}
		} else if rest >= minPaneRows {
			m.rects[PaneEvidence] = rect{left, top + th, right, rest}
		}
	}
}

// layoutStacked stacks the panes in one column. When the screen is too short for all of them,
// the focused pane (or the transcript) takes the body alone.
func (m *Model) layoutStacked(w, h, top int) {
	order := []PaneID{PaneTimers, PaneTranscript, PaneEvidence, PaneGuardrails}
	if m.showDebug {
		order = []PaneID{PaneTimers, PaneTranscript, PaneDebug}
	}
	const timersRows = 6 // state, node clock, exam clock, counts
	if h < timersRows+3*minPaneRows {
		only := m.focus
		if _, ok := paneSet(order)[only]; !ok {
			only = PaneTranscript
		}
		m.rects[only] = rect{0, top, w, h}
		// The others are off screen but still reachable: tab brings each in turn.
		m.single = order
		return
	}
	m.rects[PaneTimers] = rect{0, top, w, timersRows}
	rest := h - timersRows
	y := top + timersRows
	others := order[1:]
	// The transcript, or the pane with focus, gets half (three fifths of two); the others
	// share the remainder. Focus is how a short screen reads a small pane whole.
	big := PaneTranscript
	if _, ok := paneSet(others)[m.focus]; ok {
		big = m.focus
	}
	bh := rest / 2
	if len(others) == 2 {
		bh = rest * 3 / 5
	}
	small, n := rest-bh, len(others)-1
	for i, id := range others {
		ph := bh
		if id != big {
			ph = small / n
			if small%n > 0 && i == len(others)-1 {
				ph += small % n
			}
		}
		if i == len(others)-1 {
			ph = top + h - y
		}
		m.rects[id] = rect{0, y, w, ph}
		y += ph
	}
}

func paneSet(ids []PaneID) map[PaneID]struct{} {
	s := make(map[PaneID]struct{}, len(ids))
	for _, id := range ids {
		s[id] = struct{}{}
	}
	return s
}

// paneAt finds the pane under a screen cell (mouse wheel).
func (m *Model) paneAt(x, y int) (PaneID, bool) {
	for id, r := range m.rects {
		if r.contains(x, y) {
			return id, true
		}
	}
	return 0, false
}

// focusOrder lists the focusable parts on screen, in tab order.
func (m *Model) focusOrder() []PaneID {
	var ids []PaneID
	if !m.info.ReadOnly {
		ids = append(ids, PaneInput)
	}
	for _, id := range paneOrder {
		_, shown := m.rects[id]
		_, stacked := paneSet(m.single)[id]
		if shown || stacked {
			ids = append(ids, id)
		}
	}
	return ids
}

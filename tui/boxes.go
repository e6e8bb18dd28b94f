package tui

// Box draws a w×h bordered pane with the title (and badge) in its top border, the body padded
// or cut to the inner width: the console's one pane frame, for the other consoles (examtui
// mark) to draw theirs the same way.
func Box(st *Styles, title, badge string, focused bool, w, h int, body []string) []string {
	return box(st, title, badge, focused, w, h, body)
}

// Fit pads or truncates a (possibly styled) line to exactly w cells.
func Fit(s string, w int) string { return fit(s, w) }

package tui

// lineCache holds a block's rendered lines for one width, so a frame only renders what it has
// not rendered before (a 2-hour session is mostly blocks that never change).
type lineCache struct {
	width int
	lines []string
}

func (c *lineCache) get(width int, render func(width int) []string) []string {
	if c.lines == nil || c.width != width {
		c.lines, c.width = render(width), width
	}
	return c.lines
}

func (c *lineCache) invalidate() { c.lines = nil }

// blockWalker calls fn with each block's lines, newest (bottom) block first, until fn returns
// false. Panes implement it over their own data.
type blockWalker func(width int, fn func(lines []string) bool)

// walkNewest is a blockWalker's loop over a pane's blocks: fn gets the lines of each block,
// newest (last) first, until it returns false. It reports whether fn wanted more.
func walkNewest[B any](blocks []B, fn func(lines []string) bool, lines func(*B) []string) bool {
	for i := len(blocks) - 1; i >= 0; i-- {
		if !fn(lines(&blocks[i])) {
			return false
		}
	}
	return true
}

// scroller keeps a pane's position as lines scrolled up from the bottom: zero follows the
// newest content, which is what an exam console watches most of the time.
type scroller struct {
	offset int
}

func (s *scroller) up(n int)   { s.offset += n }
func (s *scroller) down(n int) { s.offset = max(s.offset-n, 0) }

// by moves n lines: positive shows older content.
func (s *scroller) by(n int) {
	if n > 0 {
		s.up(n)
	} else {
		s.down(-n)
	}
}

// window returns the height lines visible at the current offset, top to bottom. It walks
// blocks from the bottom and stops as soon as the window is filled, so its cost follows the
// visible lines and the scroll depth, never the session length. An offset past the oldest
// line is clamped here, where the total is discovered.
func (s *scroller) window(walk blockWalker, width, height int) []string {
	lines, _ := s.windowAbove(walk, width, height)
	return lines
}

// windowMarked is window with its top row saying "↑ more above" when older lines are out of
// view, so a pane whose oldest visible entry has lost its header says so.
func (s *scroller) windowMarked(walk blockWalker, width, height int, st *Styles) []string {
	lines, above := s.windowAbove(walk, width, height)
	if above && len(lines) >= 2 {
		lines[0] = st.Muted.Render(fit("↑ more above · home: oldest", width))
	}
	return lines
}

// windowAbove is window, and whether older lines lie above it.
func (s *scroller) windowAbove(walk blockWalker, width, height int) ([]string, bool) {
	if height <= 0 || width <= 0 {
		return nil, false
	}
	type piece struct {
		lines    []string
		from, to int // slice of lines inside the window
	}
	var pieces []piece
	below := 0 // lines already walked, counted from the bottom
	want := s.offset + height
	walk(width, func(lines []string) bool {
		n := len(lines)
		lo, hi := below, below+n // this block covers [lo, hi) from the bottom
		if hi > s.offset && lo < want {
			// Visible part: from-bottom range [max(lo,offset), min(hi,want)).
			a, b := max(lo, s.offset), min(hi, want)
			pieces = append(pieces, piece{lines, n - (b - lo), n - (a - lo)})
		}
		below = hi
		return below <= want // one block past the window says whether there is more above
	})
	if below < want && s.offset > 0 {
		// Reached the oldest line before filling the window: clamp and render again.
		clamped := max(below-height, 0)
		if clamped != s.offset {
			s.offset = clamped
			return s.windowAbove(walk, width, height)
		}
	}
	out := make([]string, 0, height)
	for i := len(pieces) - 1; i >= 0; i-- {
		p := pieces[i]
		out = append(out, p.lines[p.from:p.to]...)
	}
	return out, below > want
}

package voicepath

import "time"

// LineEnding is how an examiner's line ended.
type LineEnding int

// Line endings.
const (
	LineUnknown LineEnding = iota
	// LineWhole: the sink played the whole line (a room's track has sent its last sample).
	LineWhole
	// LineCut: the line was cut (a barge-in, a stop, an instruction or a command); Played says
	// how much of it was played first.
	LineCut
	// LineDropped: the line was dropped from the queue before a sample of it was played.
	LineDropped
	// LineFailed: the line could not be said (the synthesizer or the sink failed).
	LineFailed
)

func (e LineEnding) String() string {
	switch e {
	case LineWhole:
		return "whole"
	case LineCut:
		return "cut"
	case LineDropped:
		return "dropped"
	case LineFailed:
		return "failed"
	}
	return "unknown"
}

// ParseLineEnding reads a LineEnding's String; anything else is LineUnknown.
func ParseLineEnding(s string) LineEnding {
	for e := LineWhole; e <= LineFailed; e++ {
		if e.String() == s {
			return e
		}
	}
	return LineUnknown
}

// LineEnd says that an examiner's line is over: the sink has played its last sample (for a
// room's track: sent it), or it was cut, dropped or failed. The spoken event marks a line's
// start; this marks its end, so a listener knows the examiner finished without guessing from
// a silence (a starved track sends a line late and in pieces).
type LineEnd struct {
	// Seq is the sequence number of the line's last spoken event (the queue joins lines that
	// follow each other); Lines how many spoken events it said.
	Seq   int64
	Lines int
	// Played is how much of the line was played, of Total; both zero for a dropped line.
	Played, Total time.Duration
	Ending        LineEnding
	// Idle: nothing is queued or being said after this line. Through is then the highest
	// spoken seq the path has been given: every line up to it is over.
	Idle    bool
	Through int64
}

// WithLineEnd receives the end of every examiner line (LineEnd): a room tells its
// participants. It runs on the speech goroutine and must not block.
func WithLineEnd(fn func(LineEnd)) Option {
	return func(c *config) error { c.lineEnd = fn; return nil }
}

// reportLineEnd reports the end of l to WithLineEnd's receiver; through is the highest seq
// pushed, read with idle.
func (p *Path) reportLineEnd(l line, played, total time.Duration, e LineEnding, idle bool, through int64) {
	if p.cfg.lineEnd == nil {
		return
	}
	le := LineEnd{Seq: l.seq, Lines: max(l.n, 1), Played: played, Total: total, Ending: e, Idle: idle}
	if idle {
		le.Through = through
	}
	p.cfg.lineEnd(le)
}

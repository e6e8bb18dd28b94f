package tui

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/runtime"
)

// turnKind says who a transcript line belongs to.
type turnKind int

const (
	turnCandidate turnKind = iota
	turnExaminer
	turnSystem
)

func (k turnKind) String() string {
	switch k {
	case turnCandidate:
		return "candidate"
	case turnExaminer:
		return "examiner"
	default:
		return "system"
	}
}

// turn is one transcript entry with its wrapped lines cached per width.
type turn struct {
	kind  turnKind
	at    time.Time
	text  string
	tag   string // confidence or interception marker, shown after the speaker
	low   bool   // spoken with STT confidence under the threshold
	cache lineCache
}

// transcriptPane shows candidate and examiner turns, newest at the bottom. Examiner lines come
// from spoken events (what was actually said, after any interception); the examiner's own
// transcript segments would duplicate them and are not shown.
type transcriptPane struct {
	turns   []turn
	interim *turn // the candidate's words while speaking, replaced on every update
	scroll  scroller
	paneSize
	minConf float64
	st      *Styles
	spoken  int // candidate and examiner turns, for the title
	// unseen counts the lines added below the view while the reader is scrolled up: the
	// newest unseen lines, shown as a "N new lines ↓" marker until they come into view.
	unseen int
}

func newTranscriptPane(st *Styles, minConf float64) *transcriptPane {
	return &transcriptPane{st: st, minConf: minConf}
}

func (p *transcriptPane) title() string { return "Transcript" }

func (p *transcriptPane) badge() string {
	if p.scroll.offset > 0 {
		return "scrolled · end: newest"
	}
	return plural(p.spoken, "turn")
}

// scrollBy moves the view; lines that come into view are no longer new, and reaching the
// bottom follows the exam again.
func (p *transcriptPane) scrollBy(n int) {
	p.scroll.by(n)
	p.unseen = min(p.unseen, p.scroll.offset)
}

// grew keeps a scrolled reader's place when n lines are added at the bottom, and counts them
// as new until they come into view.
func (p *transcriptPane) grew(n int) {
	p.scroll.up(n)
	p.unseen += n
}

func (p *transcriptPane) invalidate() {
	for i := range p.turns {
		p.turns[i].cache.invalidate()
	}
}

// apply adds what the event says to the transcript; the width is the pane's, so a reader
// scrolled up keeps their place (add).
func (p *transcriptPane) apply(ev runtime.Event, pl runtime.Payload) {
	width := p.width
	switch v := pl.(type) {
	case *runtime.TranscriptSegmentPayload:
		if v.Speaker == runtime.SpeakerExaminer {
			return
		}
		t := turn{kind: turnCandidate, at: ev.Timestamp, text: v.Text}
		// Typed answers carry no recognition confidence worth showing.
		if v.Source != runtime.SourceTyped && (v.Source != runtime.SourceUnknown || v.Confidence < 1) {
			t.low = v.Confidence < p.minConf
			t.tag = fmt.Sprintf("[%.2f]", v.Confidence)
			if t.low {
				t.tag = fmt.Sprintf("[%.2f low]", v.Confidence)
			}
		}
		if !v.IsFinal {
			p.interim = &t
			return
		}
		p.interim = nil
		p.add(t, width)
	case *runtime.SpokenPayload:
		tag := ""
		if v.Intercepted {
			tag = "[intercepted]"
		}
		// Later parts of one utterance (streamed sentences) extend the line already shown.
		if n := len(p.turns); v.Part > 0 && n > 0 && p.turns[n-1].kind == turnExaminer {
			last := &p.turns[n-1]
			before := 0
			if width > 0 && p.scroll.offset > 0 {
				before = len(last.cache.get(width, last.render(p.st)))
			}
			last.text += " " + v.Text
			if tag != "" {
				last.tag = tag
			}
			last.cache.invalidate()
			if before > 0 {
				p.grew(len(last.cache.get(width, last.render(p.st))) - before)
			}
			return
		}
		p.add(turn{kind: turnExaminer, at: ev.Timestamp, text: v.Text, tag: tag}, width)
	case *runtime.CommandAcknowledgedPayload:
		verdict := "accepted"
		if !v.Accepted {
			verdict = "declined"
		}
		text := fmt.Sprintf("command %s %s", v.Command, verdict)
		if v.Detail != "" {
			text += ": " + oneLine(v.Detail)
		}
		p.add(turn{kind: turnSystem, at: ev.Timestamp, text: text}, width)
	case *runtime.NodeEnteredPayload:
		variant := ""
		if v.Variant != "" { // examiners see which version of the question the candidate got
			variant = ", variant " + v.Variant
		}
		p.add(turn{kind: turnSystem, at: ev.Timestamp,
			text: fmt.Sprintf("── %s (node %d of %d%s) ──", v.NodeID, v.Progress.CurrentNodeIndex, v.Progress.TotalNodes, variant)}, width)
	case *runtime.AdminInstructionPayload:
		switch {
		case v.Status == runtime.AdminReceived && v.Mode == runtime.AdminSay:
			p.add(turn{kind: turnSystem, at: ev.Timestamp,
				text: fmt.Sprintf("line to say (%s): %s", v.Sender, oneLine(v.Text))}, width)
		case v.Status == runtime.AdminReceived:
			p.add(turn{kind: turnSystem, at: ev.Timestamp,
				text: fmt.Sprintf("examiner instruction (%s, %s): %s", v.Mode, v.Sender, oneLine(v.Text))}, width)
		case v.Status == runtime.AdminNotActionable:
			p.add(turn{kind: turnSystem, at: ev.Timestamp,
				text: fmt.Sprintf("instruction not actionable, nothing said: %s", oneLine(v.Text))}, width)
		case v.Status == runtime.AdminFailed:
			p.add(turn{kind: turnSystem, at: ev.Timestamp,
				text: fmt.Sprintf("instruction failed: %s", oneLine(v.Text))}, width)
		}
	case *runtime.ExamStatePayload:
		switch v.State {
		case runtime.StatePaused:
			p.add(turn{kind: turnSystem, at: ev.Timestamp, text: pauseText(v)}, width)
		case runtime.StateCompleted, runtime.StateAborted, runtime.StateExpired:
			p.add(turn{kind: turnSystem, at: ev.Timestamp, text: "exam " + v.State.String()}, width)
		case runtime.StateInProgress:
			if v.Previous == runtime.StatePaused {
				p.add(turn{kind: turnSystem, at: ev.Timestamp, text: pauseText(v)}, width)
			}
		}
	case *runtime.CandidatePresencePayload:
		p.add(turn{kind: turnSystem, at: ev.Timestamp, text: cleanText(v.Summary())}, width)
	case *runtime.SystemErrorPayload:
		p.add(turn{kind: turnSystem, at: ev.Timestamp, text: fmt.Sprintf("error %s: %s", v.Code, oneLine(v.Message))}, width)
	case *runtime.ExaminerSwitchedPayload:
		p.add(turn{kind: turnSystem, at: ev.Timestamp, text: examinerSwitchedText(v)}, width)
	}
}

// add appends a turn; when the reader has scrolled up, the offset grows by the new lines so
// what they are reading stays in place.
func (p *transcriptPane) add(t turn, width int) {
	if t.kind != turnSystem {
		p.spoken++
	}
	p.turns = append(p.turns, t)
	if p.scroll.offset > 0 && width > 0 {
		last := &p.turns[len(p.turns)-1]
		p.grew(len(last.cache.get(width, last.render(p.st))))
	}
}

func (t *turn) render(st *Styles) func(width int) []string {
	return func(width int) []string {
		switch t.kind {
		case turnSystem:
			return wrapPrefixed(nil, oneLine(t.text), &st.System, width, 2)
		case turnExaminer:
			prefix := []span{{"Examiner", st.Examiner}}
			if t.tag != "" {
				prefix = append(prefix, span{" " + t.tag, st.Intercepted})
			}
			prefix = append(prefix, span{": ", st.Examiner})
			return wrapPrefixed(prefix, oneLine(t.text), nil, width, 2)
		default:
			prefix := []span{{"Candidate", st.Candidate}}
			if t.tag != "" {
				ts := st.Confidence
				if t.low {
					ts = st.LowConfidence
				}
				prefix = append(prefix, span{" " + t.tag, ts})
			}
			prefix = append(prefix, span{": ", st.Candidate})
			return wrapPrefixed(prefix, oneLine(t.text), nil, width, 2)
		}
	}
}

func (p *transcriptPane) walk(width int, fn func([]string) bool) {
	if p.interim != nil {
		it := p.interim
		lines := wrapPrefixed([]span{{"Candidate (speaking): ", p.st.Interim}}, oneLine(it.text)+" …", &p.st.Interim, width, 2)
		if !fn(lines) {
			return
		}
	}
	walkNewest(p.turns, fn, func(t *turn) []string { return t.cache.get(width, t.render(p.st)) })
}

// view shows the window; while the reader is scrolled up and lines arrived below it, the last
// row says how many instead, so an examiner reading back never misses the exam going on.
func (p *transcriptPane) view() []string {
	lines := p.scroll.window(p.walk, p.width, p.height)
	p.unseen = min(p.unseen, p.scroll.offset) // the window clamps the offset
	if p.unseen == 0 || len(lines) < 2 {
		return lines
	}
	lines[len(lines)-1] = p.st.Notice.Render(fit(plural(p.unseen, "new line")+" ↓ end: follow", p.width))
	return lines
}

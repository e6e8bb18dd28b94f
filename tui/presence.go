package tui

import (
	"time"

	"github.com/examtui/examtui/runtime"
)

// presenceView is what the console knows of the candidate in a room exam (candidate_presence
// events) and of who paused the exam. It stays empty for an exam without a room, so local
// consoles show nothing new.
type presenceView struct {
	identity string
	present  bool
	away     time.Time // when the last candidate left; zero while one is present
	reason   string    // why they left
	seen     bool      // any candidate_presence event arrived
	paused   string    // "paused by examiner-ana", "paused: candidate left"; "" unless paused
}

func (p *presenceView) apply(ev runtime.Event, pl runtime.Payload) {
	switch v := pl.(type) {
	case *runtime.CandidatePresencePayload:
		p.seen = true
		p.identity = cleanText(v.Identity)
		switch v.Status {
		case runtime.PresenceLeft:
			if v.Present == 0 {
				p.present, p.away, p.reason = false, ev.Timestamp, cleanText(v.Reason)
			}
		default:
			p.present, p.away, p.reason = true, time.Time{}, ""
		}
	case *runtime.ExamStatePayload:
		p.paused = ""
		if v.State == runtime.StatePaused {
			p.paused = cleanText(v.PauseSummary())
		}
	}
}

// line is the Timers pane's candidate line, "" before any presence event: "Candidate cand-1
// in the room", or "Candidate cand-1 away 00:42 (connection lost)" with the time counted from
// the leave to now (the console's clock).
func (p *presenceView) line(st *Styles, now time.Time) string {
	if !p.seen {
		return ""
	}
	head := st.StatusKey.Render("Candidate ") + st.StatusValue.Render(p.identity)
	if p.present {
		return head + " " + st.Good.Render("in the room")
	}
	s := "away"
	if !p.away.IsZero() {
		s += " " + mmss(max(0, now.Sub(p.away)))
	}
	if p.reason != "" {
		s += " (" + p.reason + ")"
	}
	return head + " " + st.Warn.Render(s)
}

// pauseText is the transcript's line for a pause or a resume: who did it when the event says
// so, the bare state otherwise (sessions recorded before exam_state carried By).
func pauseText(v *runtime.ExamStatePayload) string {
	if v.By == nil {
		if v.State == runtime.StatePaused {
			return "exam paused"
		}
		return "exam resumed"
	}
	return "exam " + cleanText(v.PauseSummary())
}

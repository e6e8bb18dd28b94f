package app

import (
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// PresenceSummary is the readable line of an event about who is in the exam: a candidate
// joining, leaving or rejoining the room ("candidate cand-1 left (connection lost)"), or the exam
// paused or resumed and by whom ("paused by examiner-ana", "paused: candidate left"). It is ""
// for every other event, and cleaned for a terminal.
func PresenceSummary(ev runtime.Event) string {
	if ev.Event != runtime.EventCandidatePresence && ev.Event != runtime.EventExamState {
		return ""
	}
	p, err := ev.Decode()
	if err != nil {
		return ""
	}
	switch v := p.(type) {
	case *runtime.CandidatePresencePayload:
		return textsafe.Line(v.Summary())
	case *runtime.ExamStatePayload:
		return textsafe.Line(v.PauseSummary())
	}
	return ""
}

package sessions

import (
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// PresenceRecord is one change of who is in the exam: a candidate joining, leaving or rejoining
// the room, or the exam paused or resumed, with who did it.
type PresenceRecord struct {
	Seq    int64
	At     time.Time
	NodeID string
	// Text is the change in words: "candidate cand-1 left (connection lost)", "paused by
	// examiner-ana", "paused: candidate left".
	Text string
}

// presenceRecord is the record of ev, if it is about presence or a pause.
func presenceRecord(ev runtime.Event, p runtime.Payload) (PresenceRecord, bool) {
	switch v := p.(type) {
	case *runtime.CandidatePresencePayload:
		return PresenceRecord{Seq: ev.Seq, At: ev.Timestamp, NodeID: v.NodeID, Text: v.Summary()}, true
	case *runtime.ExamStatePayload:
		if s := v.PauseSummary(); s != "" {
			return PresenceRecord{Seq: ev.Seq, At: ev.Timestamp, Text: s}, true
		}
	}
	return PresenceRecord{}, false
}

// writePresence adds the "Presence and pauses" section when the session has any.
func writePresence(b *strings.Builder, sum *Summary) {
	if len(sum.Presence) == 0 {
		return
	}
	b.WriteString("\n## Presence and pauses\n\n")
	for _, r := range sum.Presence {
		fmt.Fprintf(b, "- %s %s", offset(sum.StartedAt, r.At), mdText(r.Text))
		if r.NodeID != "" {
			fmt.Fprintf(b, " in %s", mdText(r.NodeID))
		}
		b.WriteString("\n")
	}
}

package marking

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// twoHourSession is a 2-hour exam's events: a candidate turn every 6 seconds (1200 turns),
// each with its transcript segment, the examiner's observation (a realistic raw report), an
// accepted signal or a misconception, the examiner's reply as a segment and as spoken.
func twoHourSession(b *testing.B) []runtime.Event {
	s := &stream{t: b}
	signals := []string{"proposes_options", "analyses_clientele", "considers_budget", "plans_staffing", "communicates_clearly"}
	levels := []string{"description", "analysis", "evaluation"}
	raw, _ := json.Marshal(map[string]any{"signals": []map[string]any{{"signalType": "considers_budget", "rubricLevel": "analysis",
		"excerpt": "the labour cost rises but revenue pays for it", "confidence": 0.8}}, "answerQuality": "adequate", "needsFollowUp": true,
		"followUpType": "probe", "evidenceSufficient": false, "spokenText": "What would that cost us, and how would we pay for it?"})
	for turn := range 1200 {
		s.said(fmt.Sprintf("seg-%05d", turn))
		s.add(&runtime.ObservationPayload{NodeID: "scenario-hotel-breakfast", Turn: turn, Examiner: "gpt", Raw: raw, Valid: true,
			Decision: runtime.Decision{Action: runtime.DecisionFollowUp}})
		if turn%10 == 9 {
			s.add(&runtime.EvidenceUpdatePayload{NodeID: "scenario-hotel-breakfast", SignalType: "misconception",
				Misconception: &runtime.Misconception{Concept: "revenue", Misconception: "revenue is profit"}})
		} else {
			si := intp(turn % 4)
			s.signal(signals[turn%len(signals)], levels[turn%len(levels)], 0.5+float64(turn%5)/10, si)
		}
		s.add(&runtime.TranscriptSegmentPayload{SegmentID: fmt.Sprintf("ex-%05d", turn), NodeID: "scenario-hotel-breakfast",
			Speaker: runtime.SpeakerExaminer, Text: "What would that cost us, and how would we pay for it?", IsFinal: true})
		s.add(&runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Text: "What would that cost us, and how would we pay for it?"})
	}
	last := s.events[len(s.events)-1].Timestamp.Sub(s.events[0].Timestamp)
	if last < 99*time.Minute {
		b.Fatalf("the session spans %v", last)
	}
	return s.events
}

// BenchmarkPropose2h: proposals for a 2-hour session's ledger (target < 50 ms).
func BenchmarkPropose2h(b *testing.B) {
	exam := runtimetest.DemoExam(b, nil)
	events := twoHourSession(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Propose(exam, events); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(events)), "events")
}

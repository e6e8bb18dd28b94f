package runtime

import (
	"slices"
	"testing"
	"time"
)

// TestFinalSegments: only final segments, in order, with their events; interim ones and other
// events are left out, and a consumer may stop early.
func TestFinalSegments(t *testing.T) {
	var evs []Event
	add := func(p Payload) {
		ev, err := NewEvent("s", int64(len(evs)+1), time.Unix(0, 0), p)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	add(&TranscriptSegmentPayload{SegmentID: "a", Text: "we could", Speaker: SpeakerCandidate})
	add(&TranscriptSegmentPayload{SegmentID: "a", Text: "we could open a buffet", Speaker: SpeakerCandidate, IsFinal: true})
	add(&NodeEnteredPayload{NodeID: "n2"})
	add(&TranscriptSegmentPayload{SegmentID: "b", Text: "Thank you.", Speaker: SpeakerExaminer, IsFinal: true})
	var got []string
	var seqs []int64
	for ev, ts := range FinalSegments(evs) {
		got, seqs = append(got, ts.Text), append(seqs, ev.Seq)
	}
	if !slices.Equal(got, []string{"we could open a buffet", "Thank you."}) || !slices.Equal(seqs, []int64{2, 4}) {
		t.Fatalf("final segments %q at %v", got, seqs)
	}
	for range FinalSegments(evs) {
		break // stopping early must not panic
	}
}

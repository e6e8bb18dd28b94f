package runtime

import "iter"

// FinalSegments yields, in order, each final transcript segment of events with the event that
// carries it: what was said, once, interim segments left out (a final one supersedes them). A
// segment that does not decode is skipped. The marking console, the model panel and the
// subject-access archive read transcripts through it.
func FinalSegments(events []Event) iter.Seq2[Event, *TranscriptSegmentPayload] {
	return func(yield func(Event, *TranscriptSegmentPayload) bool) {
		for _, ev := range events {
			if ev.Event != EventTranscriptSegment {
				continue
			}
			p, err := ev.Decode()
			if err != nil {
				continue
			}
			if ts := p.(*TranscriptSegmentPayload); ts.IsFinal && !yield(ev, ts) {
				return
			}
		}
	}
}

package runtimetest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/examtui/examtui/runtime"
)

// CheckAssessedOnce checks the controller's invariant about the candidate's words on an event
// stream: every final candidate segment that carries words is either observed exactly once (a
// valid observation of its turn that was not discarded, which can become evidence) or recorded
// as a not_assessed recovery_event with a known reason, and never both. It returns every breach.
func CheckAssessedOnce(events []runtime.Event) error {
	type words struct {
		seg, text            string
		observed, unassessed int
	}
	turns := map[int]*words{}
	var order []int
	turn := 0
	var errs []error
	for _, ev := range events {
		p, err := ev.Decode()
		if err != nil {
			return fmt.Errorf("seq %d: %w", ev.Seq, err)
		}
		switch p := p.(type) {
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker != runtime.SpeakerCandidate || !p.IsFinal {
				continue
			}
			turn++
			if strings.TrimSpace(p.Text) != "" {
				turns[turn] = &words{seg: p.SegmentID, text: p.Text}
				order = append(order, turn)
			}
		case *runtime.ObservationPayload:
			if w := turns[p.Turn]; w != nil && p.Turn > 0 && p.Valid && p.Decision.Action != runtime.DecisionDiscarded {
				w.observed++
			}
		case *runtime.RecoveryPayload:
			if p.Kind != runtime.RecoveryNotAssessed {
				continue
			}
			w := turns[p.Turn]
			switch {
			case w == nil || w.seg != p.SegmentID:
				errs = append(errs, fmt.Errorf("seq %d: not_assessed names turn %d, segment %s, which carried no words", ev.Seq, p.Turn, p.SegmentID))
			case !p.Reason.Valid():
				errs = append(errs, fmt.Errorf("seq %d: not_assessed with reason %q", ev.Seq, p.Reason))
			default:
				w.unassessed++
			}
		}
	}
	for _, t := range order {
		if w := turns[t]; w.observed+w.unassessed != 1 {
			errs = append(errs, fmt.Errorf("turn %d (%s %q): observed %d times, not_assessed %d times (want exactly one of them once)",
				t, w.seg, w.text, w.observed, w.unassessed))
		}
	}
	return errors.Join(errs...)
}

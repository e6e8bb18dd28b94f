package panel

import (
	"slices"
	"testing"
)

// Whatever a model sends as report_marks arguments, an accepted mark names a known criterion
// and level and cites only the candidate's transcript segments, at least one.
func FuzzCheckMarks(f *testing.F) {
	f.Add(`{"marks":[{"criterion":"c","level":"low","rationale":"r","segments":["seg-0001"]}]}`)
	f.Add(`{"marks":[{"criterion":"c","level":"high","segments":[]},{"criterion":"x"}]}`)
	f.Add(`{"marks":null}`)
	f.Add(`[1,2]`)
	in := Input{SessionID: "s", Criteria: []Criterion{{ID: "c", Levels: []string{"low", "high"}}},
		Segments: []Segment{{ID: "seg-0001", Speaker: "candidate"}, {ID: "seg-0002", Speaker: "examiner"}}}
	f.Add(`{"marks":[{"criterion":"c","level":"low","rationale":"r","segments":["seg-0002"]}]}`)
	known := speakers(in)
	f.Fuzz(func(t *testing.T, args string) {
		ok, rej, err := checkMarks(args, in, known, RoundFirst)
		if err != nil && (ok != nil || rej != nil) {
			t.Fatalf("an error with marks: %v %v %v", err, ok, rej)
		}
		if len(ok) > 1 {
			t.Fatalf("two accepted marks for one criterion: %+v", ok)
		}
		for _, m := range ok {
			if m.Criterion != "c" || !slices.Contains(in.Criteria[0].Levels, m.Level) || len(m.Segments) == 0 {
				t.Fatalf("accepted %+v", m)
			}
			for _, s := range m.Segments {
				if known[s] != candidateSpeaker {
					t.Fatalf("accepted a segment that is not the candidate's: %+v", m)
				}
			}
		}
		for _, r := range rej {
			if r.Reason == RejectUnknown || r.Detail == "" {
				t.Fatalf("rejection without a reason: %+v", r)
			}
		}
	})
}

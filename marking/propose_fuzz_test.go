package marking

import (
	"math"
	"slices"
	"testing"

	"github.com/examtui/examtui/runtime/runtimetest"
)

// FuzzPropose: whatever levels, confidences and scaffolding the examiner reported (an LLM's
// words reach the ledger), the proposal names a level of each criterion, earns no more than
// the criterion's marks, and is the same twice.
func FuzzPropose(f *testing.F) {
	f.Add("analysis", 0.9, 2, "evaluation", 0.3, -1, true)
	f.Add("", math.NaN(), 7, "none", 1.0, 3, false)
	f.Add("evaluation\x00", -1.0, 0, "description", math.Inf(1), 1, true)
	exam := runtimetest.DemoExam(f, nil)
	signals := []string{"proposes_options", "analyses_clientele", "considers_budget", "plans_staffing", "communicates_clearly", "misconception"}
	f.Fuzz(func(t *testing.T, l1 string, c1 float64, s1 int, l2 string, c2 float64, s2 int, seg bool) {
		s := &stream{t: t}
		for i, e := range []struct {
			level string
			conf  float64
			scaff int
		}{{l1, c1, s1}, {l2, c2, s2}} {
			if seg {
				s.said("seg")
			}
			var sc *int
			if e.scaff >= 0 {
				sc = intp(e.scaff)
			}
			sig := signals[(len(e.level)+i)%len(signals)]
			if math.IsNaN(e.conf) || math.IsInf(e.conf, 0) {
				e.conf = 0 // JSON cannot carry them; the controller never stores them
			}
			s.signal(sig, e.level, e.conf, sc)
		}
		p, err := Propose(exam, s.events)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Propose(exam, s.events)
		total := 0
		for i, c := range p.Criteria {
			crit := exam.Marking.Criterion(c.Criterion)
			if !slices.Contains(crit.LevelNames(), c.Level) || c.Marks != crit.Marks(c.Level) || c.Marks > c.MaxMarks {
				t.Errorf("%s: level %q, %d of %d marks", c.Criterion, c.Level, c.Marks, c.MaxMarks)
			}
			if again.Criteria[i].Level != c.Level {
				t.Errorf("%s: %q then %q", c.Criterion, c.Level, again.Criteria[i].Level)
			}
			total += c.Marks
		}
		if p.Result.Total != total || total > exam.Marking.MaxTotal {
			t.Errorf("total %d (sum %d) of %d", p.Result.Total, total, exam.Marking.MaxTotal)
		}
	})
}

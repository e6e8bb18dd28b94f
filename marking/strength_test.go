package marking

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestScriptsByStrength records the example exam's strong, middling and weak candidate scripts
// with the offline examiner and proposes marks: the offline examiner judges each signal's level
// from the level cues the exam authors, so the strong script reaches the higher levels and a
// distinction, the middling one passes and the weak one fails.
func TestScriptsByStrength(t *testing.T) {
	st, _, _ := engines[0].open(t)
	want := []struct {
		grade  string
		levels map[string]string
	}{
		{"distinction", map[string]string{"options": "evaluation", "clientele": "evaluation", "resources": "evaluation", "communication": "analysis"}},
		{"pass", map[string]string{"options": "analysis", "clientele": "analysis", "resources": "analysis", "communication": "description"}},
		{"fail", map[string]string{"options": "description", "clientele": "description", "resources": "description", "communication": "none"}},
	}
	prev := 1 << 30
	for i, name := range runtimetest.ScriptsByStrength {
		id := recordScript(t, st, name, fmt.Sprint("Candidate ", i), time.Duration(i)*time.Hour)
		s, err := Load(context.Background(), st, id)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Propose(s.Exam, s.Events)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range p.Criteria {
			got[c.Criterion] = c.Level
		}
		t.Logf("%s: %v, %d of %d: %s", name, got, p.Result.Total, p.Result.MaxTotal, p.Result.Grade)
		if fmt.Sprint(got) != fmt.Sprint(want[i].levels) || p.Result.Grade != want[i].grade {
			t.Errorf("%s: proposed %v (%s), want %v (%s)", name, got, p.Result.Grade, want[i].levels, want[i].grade)
		}
		if p.Result.Total >= prev {
			t.Errorf("%s: total %d not below the stronger script's %d", name, p.Result.Total, prev)
		}
		prev = p.Result.Total
	}
}

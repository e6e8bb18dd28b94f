package marking

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// TestTriage: with a tolerance of one level, differences within it settle by the rule unless
// the markers' totals fall in different bands; beyond it they wait for a moderator; with two
// markers needed, one marker's level is not final.
func TestTriage(t *testing.T) {
	base := runtimetest.DemoExam(t, nil).Marking
	at := time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC)
	marks := func(m *spec.CompiledMarking, who string, levels map[string]string) []sessions.Mark {
		var out []sessions.Mark
		for _, c := range m.Criteria {
			l := levels[c.ID]
			out = append(out, sessions.Mark{SessionID: "s", Criterion: c.ID, Marker: who, Level: l, Marks: c.Marks(l), At: at})
		}
		at = at.Add(time.Minute)
		return out
	}
	rest := map[string]string{"clientele": "description", "resources": "analysis", "communication": "description"} // 5 marks
	with := func(options string, over map[string]string) map[string]string {
		m := map[string]string{"options": options}
		for k, v := range rest {
			m[k] = v
		}
		for k, v := range over {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name       string
		settle     string
		tolerance  int
		markers    int
		alice, bob map[string]string // nil bob: only alice marked
		status     Status
		final      string
		boundary   bool
	}{
		{"one apart, same band, lower", spec.SettleLower, 1, 2, with("description", nil), with("analysis", nil), StatusSettled, "description", false},
		{"one apart, higher", spec.SettleHigher, 1, 2, with("description", nil), with("analysis", nil), StatusSettled, "analysis", false},
		{"one apart, average rounds down", spec.SettleAverage, 1, 2, with("description", nil), with("analysis", nil), StatusSettled, "description", false},
		{"one apart, first marker's", spec.SettleFirst, 1, 2, with("analysis", nil), with("description", nil), StatusSettled, "analysis", false},
		{"one apart across the pass mark", spec.SettleLower, 1, 2, with("description", map[string]string{"clientele": "none"}),
			with("analysis", map[string]string{"clientele": "none"}), StatusDisagreed, "", true},
		{"two apart", spec.SettleLower, 1, 2, with("none", nil), with("analysis", nil), StatusDisagreed, "", false},
		{"no tolerance", spec.SettleLower, 0, 2, with("description", nil), with("analysis", nil), StatusDisagreed, "", false},
		{"second marker missing", spec.SettleLower, 1, 2, with("description", nil), nil, StatusAwaiting, "", false},
		{"one marker needed", spec.SettleLower, 0, 1, with("description", nil), nil, StatusAgreed, "description", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := *base
			m.Markers = tc.markers
			m.Moderation = &spec.CompiledModeration{Tolerance: tc.tolerance, Settle: tc.settle}
			all := marks(&m, "alice", tc.alice)
			if tc.bob != nil {
				all = append(all, marks(&m, "bob", tc.bob)...)
			}
			cs := States(&m, all, nil)[0]
			final := ""
			if cs.Final != nil {
				final = cs.Final.Level
			}
			if cs.Status != tc.status || final != tc.final || cs.Boundary != tc.boundary {
				t.Errorf("options: %v, final %q, boundary %v; want %v, %q, %v", cs.Status, final, cs.Boundary, tc.status, tc.final, tc.boundary)
			}
		})
	}
}

// TestSampleReproducible: the moderation sample is the same whatever order the sessions come
// in, and has ceil(percent) of them but at least min.
func TestSampleReproducible(t *testing.T) {
	m := &spec.CompiledMarking{Moderation: &spec.CompiledModeration{SamplePercent: 10, SampleMin: 2}}
	var ids []string
	for i := range 30 {
		ids = append(ids, fmt.Sprintf("session-%02d", i))
	}
	pick := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			if InSample(m, "exam", ids, id) {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
	first := pick(ids)
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	if len(first) != 3 || !slices.Equal(first, pick(rev)) {
		t.Errorf("sample %v; reversed %v", first, pick(rev))
	}
	if few := pick(ids[:5]); len(few) != 2 {
		t.Errorf("sample of 5 with min 2: %v", few)
	}
	if InSample(&spec.CompiledMarking{}, "exam", ids, ids[0]) {
		t.Error("a scheme without a sample samples")
	}
}

// TestRehearsalsLeftOut: a session a candidate script played (examtui test) is not in the
// queue, the gradebook or the count awaiting marks, unless rehearsals are asked for.
func TestRehearsalsLeftOut(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			ctx := t.Context()
			st, _, _ := eng.open(t)
			real := record(t, st, "Priya", 0)
			record(t, st, sessions.ScriptCandidatePrefix+"hotel-rehearsal", time.Hour)
			const exam = "hospitality-oral-b2"
			for _, c := range []struct {
				opts []ListOption
				want int
			}{{nil, 1}, {[]ListOption{IncludeRehearsals()}, 2}} {
				q, err := Queue(ctx, st, exam, "", c.opts...)
				if err != nil || len(q) != c.want || (c.want == 1 && q[0].SessionID != real) {
					t.Errorf("queue with %d options: %+v, %v", len(c.opts), q, err)
				}
				rows, _, err := Gradebook(ctx, st, exam, c.opts...)
				if err != nil || len(rows) != c.want {
					t.Errorf("gradebook with %d options: %d rows, %v", len(c.opts), len(rows), err)
				}
			}
			if n, err := st.AwaitingMarks(ctx); err != nil || n != 1 {
				t.Errorf("awaiting marks: %d, %v; want 1 (the script's session left out)", n, err)
			}
		})
	}
}

package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMarkingDiagnostics checks that every problem of a marking scheme is reported at once,
// each at its line and column. The scheme is appended to baseSpec, whose last line is 17.
func TestMarkingDiagnostics(t *testing.T) {
	cases := []struct {
		name    string
		marking string
		want    []string
	}{
		{"valid", `marking:
  criteria:
    - {id: c1, title: C, signals: [sig_b], levels: [{name: l1, marks: 1}, {name: l2, marks: 2}]}
  result: {passMark: 1, grades: [{name: pass, minMarks: 1}]}
`, nil},
		{"every problem at once", `marking:
  rule: {minConfidence: 1.5, minSignals: 0, scaffolding: {fromIntensity: 4, demote: 0}}
  criteria:
    - id: c1
      title: C
      signals: [sig_b, sig_x, sig_b]
      levels:
        - {name: l2, marks: 2}
        - {name: l1, marks: 1}
        - {name: none, marks: 3}
        - {name: l9, marks: 4}
    - {id: c1, title: D, signals: [sig_a], levels: [{name: l1}]}
  result:
    passMark: 99
    grades: [{name: a, minMarks: 1}, {name: b, minMarks: 1}, {name: a, minMarks: 50}]
`, []string{
			`19:25 error: minConfidence 1.5 is out of range (between 0 and 1)`,
			`19:42 error: minSignals 0 is out of range (at least 1)`,
			`19:74 error: fromIntensity 4 is out of range (scaffolding intensity runs from 1 to 3)`,
			`19:85 error: demote 0 is out of range (at least 1 level)`,
			`23:24 error: criterion "c1" names undefined signal "sig_x" (did you mean sig_a?)`,
			`23:31 error: duplicate signal "sig_b"`,
			`26:11 error: criterion "c1": levels are out of order (list the levels lowest first, as signal sig_b does: l1 < l2)`,
			`26:29 error: criterion "c1": level marks are not increasing (1 after 2) (a higher level earns more marks)`,
			`27:18 error: criterion "c1": level name "none" is reserved ("none" is the level of no evidence, always there)`,
			`28:18 error: criterion "c1": level "l9" is not a level its signals report (did you mean l1?)`,
			`29:12 error: duplicate criterion "c1" (first defined at line 21)`,
			`29:53 error: criterion "c1": level "l1" needs marks`,
			`31:15 error: passMark 99 is more than the 4 marks the criteria can give`,
			`32:58 error: grades "a" and "b" both start at 1 marks`,
			`32:69 error: duplicate grade "a"`,
			`32:82 error: grade "a" needs 50 marks, more than the 4 the criteria can give`,
		}},
		{"moderation", `marking:
  markers: 0
  moderation: {tolerance: -1, settle: median, sample: {percent: 120, min: -2}}
  criteria:
    - {id: c1, title: C, signals: [sig_b], levels: [{name: l1, marks: 1}, {name: l2, marks: 2}]}
`, []string{
			`19:12 error: markers 0 is out of range (1 (single marking) to 5; 2 is double marking)`,
			`20:27 error: tolerance -1 is out of range (levels apart, 0 or more)`,
			`20:39 error: unknown settle rule "median" (one of lower, higher, average, first)`,
			`20:65 error: sample percent 120 is out of range (between 0 and 100)`,
			`20:75 error: sample min -2 is out of range (0 or more sessions)`,
		}},
		{"a tolerance with one marker", `marking:
  moderation: {tolerance: 1}
  criteria:
    - {id: c1, title: C, signals: [sig_b], levels: [{name: l1, marks: 1}, {name: l2, marks: 2}]}
`, []string{
			`19:27 warning: a tolerance settles differences between markers, but the scheme needs one marker (set marking.markers: 2)`,
		}},
		{"nodes", `marking:
  criteria:
    - {id: c1, title: C, signals: [sig_b], nodes: [strat, start, start], levels: [{name: l1, marks: 1}]}
    - {id: c2, title: D, signals: [sig_b], nodes: [], levels: [{name: l1, marks: 1}]}
    - {id: c3, title: E, signals: [sig_b], nodes: [bye], levels: [{name: l1, marks: 1}]}
`, []string{
			`20:52 error: criterion "c1": nodes names unknown node "strat" (did you mean start?)`,
			`20:66 error: duplicate node "start"`,
			`21:51 error: criterion "c2": nodes is empty (name the nodes whose evidence counts, or leave nodes out to count every node's)`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, _ := Compile("t.yaml", []byte(baseSpec+tc.marking))
			var got []string
			for _, d := range diags {
				got = append(got, render(d))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("diagnostic %d:\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestMarkingCompiled checks the compiled scheme of the example exam: defaults resolved, the
// most marks, grades highest first.
func TestMarkingCompiled(t *testing.T) {
	m := compileExample(t).Marking
	if m == nil {
		t.Fatal("the example exam has no marking scheme")
	}
	if m.MaxTotal != 12 || *m.PassMark != 6 || m.Rule.MinConfidence != 0.6 || m.Rule.ScaffoldingDemote != 1 {
		t.Errorf("compiled %+v", m)
	}
	for total, want := range map[int]string{0: "fail", 5: "fail", 6: "pass", 9: "merit", 12: "distinction"} {
		if g := m.Grade(total); g != want {
			t.Errorf("Grade(%d) = %q, want %q", total, g, want)
		}
	}
	c := m.Criterion("resources")
	if c.Rank("none") != 0 || c.Rank("analysis") != 2 || c.Rank("bogus") != -1 || c.Marks("evaluation") != 4 {
		t.Errorf("criterion %+v", c)
	}
}

// TestMarkingModerationCompiled: markers and moderation compile with their defaults, under the
// JSON keys the store's row-level security reads (marking.markers).
func TestMarkingModerationCompiled(t *testing.T) {
	exam, diags, err := Compile("t.yaml", []byte(baseSpec+`marking:
  markers: 2
  moderation: {tolerance: 1, sample: {percent: 10}}
  criteria:
    - {id: c1, title: C, signals: [sig_b], levels: [{name: l1, marks: 1}, {name: l2, marks: 2}]}
`))
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v %v", err, diags)
	}
	m := exam.Marking
	if m.MarkersNeeded() != 2 || m.Tolerance() != 1 || m.Moderation.Settle != SettleLower || m.Moderation.SamplePercent != 10 {
		t.Errorf("compiled %+v %+v", m, m.Moderation)
	}
	enc, _ := json.Marshal(exam)
	if !strings.Contains(string(enc), `"marking":{"markers":2,`) {
		t.Errorf("compiled JSON: %s", enc)
	}
	if (&CompiledMarking{}).MarkersNeeded() != 1 || (&CompiledMarking{}).Tolerance() != 0 {
		t.Error("defaults: one marker, tolerance 0")
	}
}

package spec

import (
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

package headless_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/headless"
)

// coverRun runs scripts and counts them into one coverage set.
func coverRun(t *testing.T, paths ...string) *headless.CoverageSet {
	t.Helper()
	var set headless.CoverageSet
	for _, p := range paths {
		s := loadScript(t, p)
		r := runScript(t, s, headless.Options{})
		if !r.Passed {
			t.Fatalf("%s failed: %v", p, r.Failures)
		}
		if err := set.Add(s, r); err != nil {
			t.Fatal(err)
		}
	}
	return &set
}

// TestCoverageKnown checks the coverage of testdata/cover/cover.yaml, an exam whose items were
// counted by hand (see its header), after each script and after both.
func TestCoverageKnown(t *testing.T) {
	type counts map[headless.CoverKind][2]int // covered, total
	total := func(k headless.CoverKind, covered int) [2]int {
		return [2]int{covered, map[headless.CoverKind]int{headless.CoverNodes: 3, headless.CoverTransitions: 12, headless.CoverSignals: 2,
			headless.CoverRubric: 3, headless.CoverGuardrails: 4, headless.CoverFilters: 5, headless.CoverCommands: 9}[k]}
	}
	tests := []struct {
		name    string
		scripts []string
		want    counts
		percent float64
	}{
		{"evidence", []string{"evidence.yaml"}, counts{
			headless.CoverNodes: total(headless.CoverNodes, 3), headless.CoverTransitions: total(headless.CoverTransitions, 2),
			headless.CoverSignals: total(headless.CoverSignals, 2), headless.CoverRubric: total(headless.CoverRubric, 2),
			headless.CoverGuardrails: total(headless.CoverGuardrails, 0), headless.CoverFilters: total(headless.CoverFilters, 0),
			headless.CoverCommands: total(headless.CoverCommands, 1),
		}, 26.3}, // 10 of 38
		{"distress", []string{"distress.yaml"}, counts{
			headless.CoverNodes: total(headless.CoverNodes, 3), headless.CoverTransitions: total(headless.CoverTransitions, 2),
			headless.CoverSignals: total(headless.CoverSignals, 0), headless.CoverRubric: total(headless.CoverRubric, 0),
			headless.CoverGuardrails: total(headless.CoverGuardrails, 1), headless.CoverFilters: total(headless.CoverFilters, 0),
			headless.CoverCommands: total(headless.CoverCommands, 0),
		}, 15.8}, // 6 of 38
		{"both", []string{"evidence.yaml", "distress.yaml"}, counts{
			headless.CoverNodes: total(headless.CoverNodes, 3), headless.CoverTransitions: total(headless.CoverTransitions, 3),
			headless.CoverSignals: total(headless.CoverSignals, 2), headless.CoverRubric: total(headless.CoverRubric, 2),
			headless.CoverGuardrails: total(headless.CoverGuardrails, 1), headless.CoverFilters: total(headless.CoverFilters, 0),
			headless.CoverCommands: total(headless.CoverCommands, 1),
		}, 31.6}, // 12 of 38
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for _, s := range tc.scripts {
				paths = append(paths, filepath.Join("testdata", "cover", s))
			}
			specs := coverRun(t, paths...).Specs()
			if len(specs) != 1 {
				t.Fatalf("%d specs, want 1", len(specs))
			}
			c := specs[0]
			for _, k := range headless.CoverKinds {
				kc := c.Kind(k)
				if got := [2]int{kc.Covered, kc.Total}; got != tc.want[k] {
					t.Errorf("%s: %d/%d, want %d/%d", k, got[0], got[1], tc.want[k][0], tc.want[k][1])
				}
			}
			if c.Total != 38 || c.Percent != tc.percent {
				t.Errorf("total %d/%d = %.1f%%, want 38 items, %.1f%%", c.Covered, c.Total, c.Percent, tc.percent)
			}
		})
	}
}

// TestCoverageUncoveredPositions: uncovered items are named with where the spec defines them.
func TestCoverageUncoveredPositions(t *testing.T) {
	c := coverRun(t, "testdata/cover/evidence.yaml", "testdata/cover/distress.yaml").Specs()[0]
	where := map[string]string{}
	for _, k := range headless.CoverKinds {
		for _, it := range c.Uncovered(k) {
			where[it.Name] = it.Where
		}
	}
	spec := filepath.Join("testdata", "cover", "cover.yaml")
	tests := map[string]string{
		"intro → q on followups_exhausted": spec + ":26:11", // intro's next
		"q → end on admin_advance":         spec + ":39:11", // q's next
		"names_risk: description":          spec + ":16:14", // evidence[0].levels[0]
		"followup_limit":                   "",              // built in
		"finish":                           "",
	}
	for name, want := range tests {
		got, ok := where[name]
		if !ok {
			t.Errorf("%q is not listed as uncovered", name)
			continue
		}
		if got != want {
			t.Errorf("%q at %q, want %q", name, got, want)
		}
	}
	for _, covered := range []string{"q → end on distress", "q → end on evidence_sufficient", "repeat", "distress"} {
		if _, ok := where[covered]; ok {
			t.Errorf("%q is covered but listed as uncovered", covered)
		}
	}
	// An explicit transition points at its `on`, not at next.
	for _, it := range c.Kind(headless.CoverTransitions).Items {
		if it.Name == "q → end on distress" && it.Where != spec+":37:13" {
			t.Errorf("explicit transition at %q, want %s:37:13", it.Where, spec)
		}
	}
}

// TestCoverageSeveralSpecs: scripts of two exams are reported separately, and a run cannot be
// counted against another exam.
func TestCoverageSeveralSpecs(t *testing.T) {
	var set headless.CoverageSet
	add := func(s *headless.Script) *headless.Result {
		r := runScript(t, s, headless.Options{})
		if err := set.Add(s, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	hotel := loadExample(t, "hotel-rehearsal.yaml")
	hotelRun := add(hotel)
	own := loadScript(t, "testdata/cover/evidence.yaml")
	add(own)
	specs := set.Specs()
	if len(specs) != 2 || specs[0].ExamID != "hospitality-oral-b2" || specs[1].ExamID != "cover-known" {
		t.Fatalf("specs: %+v", specs)
	}
	if got := specs[0].Kind(headless.CoverNodes); got.Covered != 4 || got.Total != 4 {
		t.Errorf("hotel nodes %d/%d", got.Covered, got.Total)
	}
	if len(set.Below(50)) != 2 || len(set.Below(20)) != 0 {
		t.Errorf("Below: 50%% → %d specs, 20%% → %d", len(set.Below(50)), len(set.Below(20)))
	}
	c, err := headless.NewCoverage(own)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(hotelRun); !errors.Is(err, headless.ErrCoverageSpec) {
		t.Errorf("a hotel run counted against cover-known: %v", err)
	}
}

// TestCoverageReports pins the text, JSON and Markdown reports.
func TestCoverageReports(t *testing.T) {
	specs := coverRun(t, "testdata/cover/evidence.yaml", "testdata/cover/distress.yaml").Specs()
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"coverage.txt", func(b *bytes.Buffer) error { return headless.WriteCoverageText(b, specs) }},
		{"coverage.json", func(b *bytes.Buffer) error { return headless.WriteCoverageJSON(b, specs) }},
		{"coverage.md", func(b *bytes.Buffer) error { return headless.WriteCoverageMarkdown(b, specs) }},
	} {
		t.Run(f.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			if f.name == "coverage.json" && !json.Valid(b.Bytes()) {
				t.Fatal("invalid JSON")
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", f.name), b.Bytes())
		})
	}
}

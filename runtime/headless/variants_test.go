package headless_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime/headless"
)

// TestVariantPins: a script's variants: pins the question it was written for, and that pin is
// what makes it pass (the spa variant's own cue shows proposes_options; breakfast has none).
func TestVariantPins(t *testing.T) {
	spa := runFile(t, "testdata/variants.yaml")
	if !spa.Passed || spa.Variants["case"] != "spa" {
		t.Fatalf("the spa script failed or met %q:\n%s", spa.Variants["case"], report(spa))
	}
	src := scriptFromTestdata(t)
	breakfast := strings.Replace(string(src), "variants: {case: spa}", "variants: {case: breakfast}", 1)
	s, err := headless.ParseScript("testdata/variants-breakfast.yaml", []byte(breakfast))
	if err != nil {
		t.Fatal(err)
	}
	r := runScript(t, s, headless.Options{})
	if r.Passed || r.Variants["case"] != "breakfast" {
		t.Fatalf("pinned to breakfast, the script met %q and passed=%v", r.Variants["case"], r.Passed)
	}
	for _, bad := range []string{"variants: {case: sauna}", "variants: {lobby: spa}"} {
		s, err := headless.ParseScript("testdata/bad.yaml", []byte(strings.Replace(string(src), "variants: {case: spa}", bad, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := headless.Run(context.Background(), s, headless.Options{}); !errors.Is(err, headless.ErrExpectationSet) {
			t.Errorf("%s: %v, want ErrExpectationSet", bad, err)
		}
	}
}

// TestVariantExportReplays: a session's --format script export pins the variants it drew, so
// its replay in another session (whose own seed draws another variant) meets the same one.
func TestVariantExportReplays(t *testing.T) {
	src := scriptFromTestdata(t)
	unpinned := strings.Replace(string(src), "variants: {case: spa}\n", "", 1)
	unpinned = strings.Replace(unpinned, "  variants: {case: spa}\n", "", 1)
	draw := func(sid string) *headless.Result {
		s, err := headless.ParseScript("testdata/unpinned.yaml", []byte(unpinned))
		if err != nil {
			t.Fatal(err)
		}
		return runScript(t, s, headless.Options{SessionID: sid})
	}
	first := draw("export-a")
	drawn := first.Variants["case"]
	other := ""
	for i := 0; other == ""; i++ {
		sid := fmt.Sprintf("export-b%d", i)
		if draw(sid).Variants["case"] != drawn {
			other = sid
		}
	}
	spec, err := filepath.Abs("testdata/variants-exam.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := headless.ScriptFromEvents(first.Log, headless.ExportOptions{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if want := "variants: {case: " + drawn + "}\n"; !strings.Contains(string(b), want) {
		t.Fatalf("the export does not pin %q:\n%s", want, b)
	}
	s, err := headless.ParseScript("export.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	replay := runScript(t, s, headless.Options{SessionID: other})
	if !replay.Passed || replay.Variants["case"] != drawn {
		t.Fatalf("the replay in %s met %q, the session drew %q:\n%s", other, replay.Variants["case"], drawn, report(replay))
	}
}

// scriptFromTestdata is testdata/variants.yaml with its spec path made relative to this
// directory, for ParseScript.
func scriptFromTestdata(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("testdata/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.Replace(string(src), "spec: variants-exam.yaml", "spec: testdata/variants-exam.yaml", 1))
}

// TestCoverVariants: --cover counts each variant a script met and lists the ones never
// exercised, with where the spec defines them.
func TestCoverVariants(t *testing.T) {
	set := coverRun(t, "testdata/variants.yaml")
	c := set.Specs()[0]
	kc := c.Kind(headless.CoverVariants)
	if kc == nil || kc.Total != 3 || kc.Covered != 1 {
		t.Fatalf("variants coverage %+v", kc)
	}
	var never []string
	for _, it := range c.Uncovered(headless.CoverVariants) {
		never = append(never, it.Name+" "+it.Where)
	}
	want := []string{"case: breakfast testdata/variants-exam.yaml:27:13", "case: parking testdata/variants-exam.yaml:37:13"}
	if strings.Join(never, "|") != strings.Join(want, "|") {
		t.Errorf("never exercised: %q, want %q", never, want)
	}
	var b strings.Builder
	if err := headless.WriteCoverageText(&b, set.Specs()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "variants      1/3    33.3%\n      - case: breakfast  testdata/variants-exam.yaml:27:13") {
		t.Errorf("report:\n%s", b.String())
	}
}

package examgraph

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/spec"
)

// specCase is one spec the graph is checked on: the shipped example (also the embedded demo)
// and a spec that takes every reason somewhere and escapes hostile title text.
type specCase struct {
	name string
	src  []byte
}

func cases(t *testing.T) []specCase {
	t.Helper()
	branching, err := os.ReadFile("testdata/branching.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return []specCase{
		{"hotel-breakfast", examples.Demo()},
		{"branching", branching},
	}
}

func build(t *testing.T, name string, src []byte) *Graph {
	t.Helper()
	exam, diags, err := spec.Compile(name+".yaml", src)
	if err != nil {
		t.Fatalf("compile %s: %v\n%s", name, err, diags)
	}
	g, err := New(exam)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGolden(t *testing.T) {
	for _, c := range cases(t) {
		g := build(t, c.name, c.src)
		for _, f := range Formats {
			t.Run(c.name+"/"+f.String(), func(t *testing.T) {
				b, err := g.Render(f)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := g.Render(f)
				if !bytes.Equal(b, again) {
					t.Fatal("two renders differ: output is not deterministic")
				}
				testutil.Golden(t, filepath.Join("testdata", c.name+"."+ext(f)), b)
			})
		}
	}
}

func ext(f Format) string {
	switch f {
	case FormatMermaid:
		return "mmd"
	case FormatDOT:
		return "dot"
	}
	return "txt"
}

// TestEdges checks the transitions of the branching spec reason by reason, so the golden files
// are not the only guard on what fires what.
func TestEdges(t *testing.T) {
	src, err := os.ReadFile("testdata/branching.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := build(t, "branching", src)
	risk := g.Node("risk")
	if risk == nil {
		t.Fatal("no node risk")
	}
	type want struct {
		to       string
		kind     TriggerKind
		explicit bool
	}
	wants := map[spec.Reason]want{
		spec.ReasonEvidenceSufficient: {"end", TriggerSignals, false},
		spec.ReasonFollowUpsExhausted: {"retry", TriggerCount, true},
		spec.ReasonTimeExhausted:      {"retry", TriggerTime, true},
		spec.ReasonOffTopicLimit:      {"end", TriggerCount, true},
		spec.ReasonSkipped:            {"end", TriggerCommand, false},
		spec.ReasonDistress:           {"support", TriggerGuardrail, true},
		spec.ReasonAdminAdvance:       {"end", TriggerCommand, false},
	}
	seen := map[spec.Reason]bool{}
	for _, e := range risk.Edges {
		for _, tr := range e.Triggers {
			w, ok := wants[tr.Reason]
			if !ok {
				t.Errorf("unexpected reason %s", tr.Reason)
				continue
			}
			seen[tr.Reason] = true
			if e.To != w.to || tr.Kind != w.kind || tr.Explicit != w.explicit {
				t.Errorf("%s: got → %s %s explicit=%v, want → %s %s explicit=%v", tr.Reason, e.To, tr.Kind, tr.Explicit, w.to, w.kind, w.explicit)
			}
		}
	}
	for r := range wants {
		if !seen[r] {
			t.Errorf("reason %s missing from risk's edges", r)
		}
	}
	// retry has no time budget: time_exhausted cannot fire there and is not drawn.
	for _, e := range g.Node("retry").Edges {
		for _, tr := range e.Triggers {
			if tr.Reason == spec.ReasonTimeExhausted {
				t.Error("retry has no time budget but shows time_exhausted")
			}
		}
	}
	if n := g.Node("end"); n == nil || len(n.Edges) != 0 {
		t.Errorf("end node: want no edges, got %+v", n)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("svg"); err == nil || !strings.Contains(err.Error(), "known: text, mermaid, dot") {
		t.Errorf("ParseFormat(svg): %v", err)
	}
	if _, err := New(nil); err != ErrNilExam {
		t.Errorf("New(nil) = %v, want ErrNilExam", err)
	}
}

// BenchmarkGraph measures building the demo exam's graph and rendering it in every format.
func BenchmarkGraph(b *testing.B) {
	exam, _, err := spec.Compile(examples.DemoSpecName, examples.Demo())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		g, err := New(exam)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range Formats {
			if _, err := g.Render(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

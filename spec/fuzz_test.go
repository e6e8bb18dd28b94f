package spec

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
)

// hostileShapes are documents built to make a parser work hard: deep flow and block nesting,
// nesting past the parser's own limit with a syntax error after it, alias fans, long lines.
func hostileShapes() [][]byte {
	deep := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	var block strings.Builder
	for i := 0; i < 3000; i++ {
		block.WriteString(strings.Repeat(" ", i) + "- \n")
	}
	return [][]byte{
		[]byte(`{"id": ` + deep("[", "]", 50000) + `}`),
		[]byte(`{"id": ` + deep("[", "]", 9000) + `} }`),
		[]byte(`{"id": ` + deep(`{"a":`, "}", 9000) + `}`),
		[]byte("nodes: " + deep("[", "]", 65) + "\n"),
		[]byte("id: x\nnodes:\n" + block.String()),
		[]byte(strings.Repeat("- ", 200000) + "x\n"),
		[]byte("a: &a [" + strings.Repeat("x,", 1000) + "x]\nb: &b [" + strings.Repeat("*a,", 1000) + "*a]\nc: [" + strings.Repeat("*b,", 1000) + "*b]\n"),
		[]byte("title: \"" + strings.Repeat("x", 900000) + "\"\n"),
	}
}

func FuzzLoad(f *testing.F) {
	for _, p := range []string{examplePath, "testdata/invalid/many-problems.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		baseSpec,
		"",
		"---\n---\n",
		"a: &x [1, 2]\nb: *x\n",
		"nodes: *nope\n",
		"<<: {id: x}\n",
		`{"specVersion": "1", "id": "j", "nodes": [{"nodeId": "a", "kind": "end"}]}`,
		"id: !!str 5\ntitle: |\n  block\n",
		"nodes:\n  - nodeId: a\n    followUpProbes: {? x : [y]}\n",
		"specVersion: 1e400\ntotalTimeBudgetSec: 99999999999999999999\n",
		"policies: {sttMinConfidence: .nan, gates: {userIdle: -.inf}}\n",
		"\t- x\n",
	} {
		f.Add([]byte(s))
	}
	for _, s := range hostileShapes() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) < 1<<20 {
			// Any input under 1 MB costs under a second and 50 MB to refuse or load (a nested
			// 100 KB document took 7 s and 3.9 GB).
			testutil.WithinBudget(t, "Compile", time.Second, 50<<20, func() { _, _, _ = Compile("f.yaml", src) })
		}
		s, diags := Load("f.yaml", src)
		if s == nil && !diags.HasErrors() {
			t.Fatal("no spec and no error")
		}
		e, cdiags, err := Compile("f.yaml", src)
		for _, ds := range []Diagnostics{diags, cdiags} {
			for _, d := range ds {
				if d.Pos.Line < 1 || d.Pos.Col < 1 || d.Pos.File != "f.yaml" {
					t.Fatalf("unpositioned diagnostic: %+v", d)
				}
				if d.Message == "" {
					t.Fatalf("empty message: %+v", d)
				}
			}
		}
		if (err == nil) != (e != nil) || (err == nil) == cdiags.HasErrors() {
			t.Fatalf("err=%v exam=%v errors=%v", err, e != nil, cdiags.HasErrors())
		}
		if e == nil {
			return
		}
		for _, target := range Targets {
			a, err := Export(e, target)
			if err != nil {
				t.Fatal(err)
			}
			e2, _, _ := Compile("f.yaml", src)
			b, _ := Export(e2, target)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s export is not deterministic", target)
			}
		}
	})
}

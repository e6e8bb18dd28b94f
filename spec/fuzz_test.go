package spec

import (
	"bytes"
	"os"
	"testing"
)

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
	f.Fuzz(func(t *testing.T, src []byte) {
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

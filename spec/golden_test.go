package spec

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/examtui/examtui/internal/testutil"
)

func TestExampleGolden(t *testing.T) {
	e := compileExample(t)
	for _, target := range Targets {
		t.Run(string(target), func(t *testing.T) {
			b, err := Export(e, target)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(b, []byte("}\n")) {
				t.Errorf("export does not end with a newline")
			}
			if !json.Valid(b) {
				t.Fatalf("export is not valid JSON")
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "hotel-breakfast."+string(target)+".json"), b)
		})
	}
}

func TestManyProblemsGolden(t *testing.T) {
	_, diags, err := CompileFile("testdata/invalid/many-problems.yaml")
	if err == nil {
		t.Fatal("compiled a spec with errors")
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "many-problems.diagnostics.txt"), []byte(diags.String()))
}

func TestDeterministic(t *testing.T) {
	src := exampleSrc(t)
	export := func(name string, src []byte) map[Target][]byte {
		t.Helper()
		e, _ := mustCompile(t, name, src)
		e.SourceSHA256 = "" // the only field that depends on the bytes rather than the meaning
		out := map[Target][]byte{}
		for _, target := range Targets {
			b, err := Export(e, target)
			if err != nil {
				t.Fatal(err)
			}
			out[target] = b
		}
		return out
	}
	first := export("a.yaml", src)
	for i := 0; i < 5; i++ {
		again := export("a.yaml", src)
		for target, b := range first {
			if !bytes.Equal(b, again[target]) {
				t.Fatalf("%s: run %d differs from the first", target, i)
			}
		}
	}

	// The same exam with every mapping's keys in another order (JSON from a Go map sorts them
	// alphabetically) must compile to the same output.
	var generic map[string]any
	if err := yaml.Unmarshal(src, &generic); err != nil {
		t.Fatal(err)
	}
	reordered, err := json.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(reordered, src) {
		t.Fatal("re-ordered source is identical")
	}
	other := export("a.json", reordered)
	for target, b := range first {
		if !bytes.Equal(b, other[target]) {
			t.Errorf("%s: re-ordered equivalent compiles differently:\n%s", target, firstDiff(string(b), string(other[target])))
		}
	}
}

func TestSourceSHA256(t *testing.T) {
	e := compileExample(t)
	const want = 64
	if len(e.SourceSHA256) != want {
		t.Fatalf("sourceSha256 %q", e.SourceSHA256)
	}
	e2, _ := mustCompile(t, "x.yaml", append(exampleSrc(t), []byte("\n# a comment\n")...))
	if e2.SourceSHA256 == e.SourceSHA256 {
		t.Error("different bytes, same hash")
	}
}

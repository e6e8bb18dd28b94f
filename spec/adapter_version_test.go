package spec_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/spec"
)

// adapterVersionsFile records, for every adapterVersion, the digest of the examples' Pipecat
// export it produced. Entries are only ever added: -update records the current version's digest
// when it has none, and never rewrites one.
const adapterVersionsFile = "testdata/adapter-versions.json"

// examplesPipecatDigest is the digest of the pipecat-flows export of every example exam (the
// files of examples/ with a specVersion; the rest are candidate scripts), in file order. Each
// export's metadata.sourceSha256 is left out: it identifies the example's text (a comment edit
// changes it), not what the mapping made of it.
func examplesPipecatDigest(t *testing.T) string {
	t.Helper()
	names, err := fs.Glob(examples.FS, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n := 0
	for _, name := range names {
		src, err := fs.ReadFile(examples.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "\nspecVersion:") && !strings.HasPrefix(string(src), "specVersion:") {
			continue
		}
		e, diags, err := spec.Compile(name, src)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, diags)
		}
		e.SourceSHA256 = ""
		out, err := spec.ExportPipecatFlows(e)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(name + "\n"))
		h.Write(out)
		n++
	}
	if n == 0 {
		t.Fatal("no example exam in examples/")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// TestAdapterVersionPinsPipecatExport fails when the compiled Pipecat output of the examples
// changes while spec.AdapterVersion stays the same: a bot built against one adapterVersion
// must get the same mapping from every examtui that says that version. Bump AdapterVersion
// with any change to the export, then run -update to record the new version's digest.
func TestAdapterVersionPinsPipecatExport(t *testing.T) {
	recorded := map[string]string{}
	if b, err := os.ReadFile(adapterVersionsFile); err == nil {
		if err := json.Unmarshal(b, &recorded); err != nil {
			t.Fatalf("%s: %v", adapterVersionsFile, err)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	got := examplesPipecatDigest(t)
	want, ok := recorded[spec.AdapterVersion]
	switch {
	case ok && want == got:
	case ok:
		t.Fatalf("the Pipecat export of the examples changed (digest %s) but adapterVersion is still %q, whose export was %s: "+
			"bump spec.AdapterVersion (spec/compiled.go), then record it with go test ./spec -run %s -update",
			got, spec.AdapterVersion, want, t.Name())
	case testutil.Updating():
		recorded[spec.AdapterVersion] = got
		var b strings.Builder
		b.WriteString("{\n")
		for i, k := range slices.Sorted(maps.Keys(recorded)) {
			kj, _ := json.Marshal(k)
			vj, _ := json.Marshal(recorded[k])
			b.WriteString("  " + string(kj) + ": " + string(vj))
			if i < len(recorded)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("}\n")
		if err := os.WriteFile(adapterVersionsFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("adapterVersion %q has no recorded export digest in %s: record it with go test ./spec -run %s -update",
			spec.AdapterVersion, adapterVersionsFile, t.Name())
	}
}

package examgraph

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
)

// EnvMermaid names the Mermaid checker (tools/mermaid/check.mjs installed with its pinned
// packages by `make mermaid`); by default <module root>/bin/mermaid/check.mjs.
const EnvMermaid = "EXAMTUI_MERMAID"

func mermaidChecker(t *testing.T) string {
	t.Helper()
	return testutil.InstalledTool(t, EnvMermaid, "mermaid/check.mjs", "mermaid")
}

// TestDOTRendersWithGraphviz renders every DOT output with the real Graphviz dot and checks
// that each node and each edge made it into the SVG.
func TestDOTRendersWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Fatalf("Graphviz dot not found (make deps installs the graphviz package): %v", err)
	}
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			g := build(t, c.name, c.src)
			b, err := g.Render(FormatDOT)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(dot, "-Tsvg")
			cmd.Stdin = bytes.NewReader(b)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			svg, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("dot -Tsvg: %v\n%s\n%s", err, stderr.String(), b)
			}
			edges := 0
			for _, n := range g.Nodes {
				// Graphviz writes "-" in SVG titles as &#45;.
				if !bytes.Contains(svg, []byte("<title>"+strings.ReplaceAll(n.ID, "-", "&#45;")+"</title>")) {
					t.Errorf("node %s missing from the SVG", n.ID)
				}
				edges += len(n.Edges)
			}
			if got := bytes.Count(svg, []byte(`class="edge"`)); got != edges {
				t.Errorf("SVG has %d edges, the graph %d", got, edges)
			}
		})
	}
}

// TestMermaidParses runs the real Mermaid parser (mermaid.parse under Node with jsdom) over
// every Mermaid output, and over a broken one to show the check can fail.
func TestMermaidParses(t *testing.T) {
	checker := mermaidChecker(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found (make mermaid installs it): %v", err)
	}
	dir := t.TempDir()
	var files []string
	for _, c := range cases(t) {
		b, err := build(t, c.name, c.src).Render(FormatMermaid)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, c.name+".mmd")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	broken := filepath.Join(dir, "broken.mmd")
	if err := os.WriteFile(broken, []byte("flowchart TD\n  n0[\"unclosed] --> n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, append([]string{checker}, append(files, broken)...)...).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("checker: want exit 1 for the broken file, got %v\n%s", err, out)
	}
	for _, f := range files {
		if !strings.Contains(string(out), fmt.Sprintf("ok %s: flowchart", f)) {
			t.Errorf("%s does not parse as a flowchart:\n%s", filepath.Base(f), out)
		}
	}
	if !strings.Contains(string(out), "FAIL "+broken) {
		t.Errorf("the broken file was not rejected:\n%s", out)
	}
}

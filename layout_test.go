package examtui_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/examtui/examtui"

// pkg is one package of the module as go list sees it, with paths relative to the module.
type pkg struct {
	path    string
	imports []string // direct imports of ours, without tests
	deps    []string // every package of ours it builds on, without tests
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}|{{join .Deps \",\"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	ours := func(list string) []string {
		var r []string
		for _, p := range strings.Split(list, ",") {
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				r = append(r, rel)
			}
		}
		return r
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		path := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		if path == "" {
			continue // this package: documentation only
		}
		pkgs = append(pkgs, pkg{path: path, imports: ours(f[1]), deps: ours(f[2])})
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list found %d packages; the listing is broken", len(pkgs))
	}
	return pkgs
}

// under reports whether p is dir or inside it.
func under(p string, dirs ...string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// harness reports whether p is a test harness: named …test, or testutil.
func harness(p string) bool {
	base := filepath.Base(p)
	return strings.HasSuffix(base, "test") || base == "testutil"
}

// rule is one layout rule: for the packages it applies to, an import (direct, or anywhere
// below with deep) that it refuses, and why.
type rule struct {
	applies func(p string) bool
	deep    bool // check every package built on, not only direct imports
	refuses func(p, imp string) bool
	why     string
}

// forbidden is the layout's rules (docs/architecture.md quotes them).
var forbidden = []rule{
	{func(p string) bool { return p == "spec" }, false,
		func(_, imp string) bool { return imp != "spec/lang" },
		"spec imports nothing of ours but its language packs (spec/lang): it is the exam format, read by every layer and by tools outside examtui"},
	{func(p string) bool { return p == "spec/lang" }, false,
		func(_, imp string) bool { return true },
		"spec/lang imports nothing of ours: the language packs are data every layer reads"},
	{func(p string) bool { return under(p, "audio") }, false,
		func(_, imp string) bool { return !under(imp, "audio") },
		"audio imports nothing of ours: devices, VAD, endpointing, STT/TTS and WAV know no exam"},
	{func(p string) bool { return p == "runtime" }, false,
		func(_, imp string) bool { return imp != "spec" && imp != "spec/lang" && imp != "internal/textsafe" },
		"runtime imports only spec (and its language packs, spec/lang) and internal/textsafe: it takes interfaces for storage, audio and transports, so every path runs the same controller"},
	{func(p string) bool { return under(p, "transport") }, false,
		func(_, imp string) bool { return !under(imp, "audio", "runtime", "spec", "transport") },
		"a transport imports only audio, runtime and spec: the wiring (cmd/examtui/internal/app) composes transports with stores and consoles"},
	{func(p string) bool { return under(p, "runtime", "sessions", "marking", "monitor") }, true,
		func(_, imp string) bool { return under(imp, "transport", "tui", "cmd") },
		"the domain (runtime, sessions, marking, monitor) never builds on a transport, a console or the wiring: they sit above it"},
	{func(p string) bool { return under(p, "tui") }, true,
		func(_, imp string) bool { return under(imp, "transport", "cmd") },
		"a console never builds on a transport or the wiring: it is given what it shows, so one console serves every transport"},
	{func(p string) bool {
		return under(p, "internal/textsafe", "internal/httpserve", "internal/httpbound", "internal/logredact", "internal/mdterm", "internal/visual") && !harness(p)
	}, false,
		func(_, imp string) bool { return imp != "internal/textsafe" && imp != "internal/visual" },
		"a support leaf (textsafe, httpserve, httpbound, logredact, mdterm, visual) imports only the standard library (and textsafe, and visual, the display order of right-to-left text): everything may use it"},
	{func(p string) bool { return !harness(p) }, false,
		func(_, imp string) bool { return harness(imp) },
		"a test harness (a package named …test, or testutil) is imported only by tests and other harnesses: product code never carries test code"},
}

// TestLayout: every package keeps its layer's import rules.
func TestLayout(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, r := range forbidden {
			if !r.applies(p.path) {
				continue
			}
			list := p.imports
			if r.deep {
				list = p.deps
			}
			verb := "imports"
			if r.deep {
				verb = "builds on (through its imports)"
			}
			for _, imp := range list {
				if imp != p.path && r.refuses(p.path, imp) {
					t.Errorf("%s %s %s: %s", p.path, verb, imp, r.why)
				}
			}
		}
	}
}

// maxWiringLines is the size of a file of cmd/examtui: commands and flags only; logic lives
// in a domain package or the wiring under cmd/examtui/internal.
const maxWiringLines = 250

// TestWiringFileSize: no command file of cmd/examtui grows past maxWiringLines.
func TestWiringFileSize(t *testing.T) {
	files, err := filepath.Glob("cmd/examtui/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in cmd/examtui (%v)", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > maxWiringLines {
			t.Errorf("%s has %d lines: files of cmd/examtui are wiring, at most %d lines; move the logic into its package", f, n, maxWiringLines)
		}
	}
}

// TestArchitectureListsEveryPackage: docs/architecture.md's package table names every
// package, so a newcomer finds any package from it.
func TestArchitectureListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, part := range strings.Split(first, "`") {
			named[strings.TrimSpace(part)] = true
		}
	}
	var missing []string
	for _, p := range listPackages(t) {
		if !named[p.path] {
			missing = append(missing, p.path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/architecture.md's package table does not name: %s", strings.Join(missing, ", "))
	}
}

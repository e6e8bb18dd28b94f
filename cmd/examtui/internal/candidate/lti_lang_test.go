package candidate

import (
	"os"
	"path/filepath"
	"testing"
)

// A learner's launch opens the join page in the placed exam's language: the catalog carries
// each exam's language and the redirect names it.
func TestLTILaunchJoinsInTheExamsLanguage(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"oral-fr-b2.yaml", "oral-ar.yaml", "hotel-breakfast.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exams, err := SpecCatalog{Dir: dir}.Exams()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"oral-fr-b2": "/join/c0de?lang=fr", "oral-ar": "/join/c0de?lang=ar", "hotel-breakfast": "/join/c0de?lang=en"}
	seen := 0
	for _, e := range exams {
		w, ok := want[e.ID]
		if !ok {
			continue
		}
		seen++
		if got := joinPath("c0de", e.Language); got != w {
			t.Errorf("%s: the launch goes to %q, want %q", e.ID, got, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("the catalog offered %d of the %d exams: %+v", seen, len(want), exams)
	}
	if got := joinPath("c0de", ""); got != "/join/c0de" {
		t.Errorf("an exam with no language: %q", got)
	}
}

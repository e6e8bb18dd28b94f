package worker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
)

// specExtensions are tried, in order, after a name that has none of them.
var specExtensions = []string{".yaml", ".yml", ".json"}

// resolveSpec finds a spec by name in dir: NAME, or NAME with a spec extension. The built-in
// demo answers to "demo" when dir has no spec of that name. The name was checked by
// ParseMetadata (no separators); the result is still confirmed to lie inside dir.
func resolveSpec(dir, name string) (string, error) {
	if !specName.MatchString(name) {
		return "", fmt.Errorf("%w: %q", ErrBadMetadata, name)
	}
	candidates := []string{name}
	if filepath.Ext(name) == "" || !contains(specExtensions, filepath.Ext(name)) {
		for _, ext := range specExtensions {
			candidates = append(candidates, name+ext)
		}
	}
	if dir != "" {
		for _, c := range candidates {
			p := filepath.Join(dir, c)
			if filepath.Dir(p) != filepath.Clean(dir) {
				continue
			}
			st, err := os.Stat(p)
			if err == nil && st.Mode().IsRegular() {
				return p, nil
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("%w: %q: %v", ErrUnknownSpec, name, err)
			}
		}
	}
	if name == app.DemoSpec {
		return app.DemoSpec, nil
	}
	if dir == "" {
		return "", fmt.Errorf("%w: %q (the worker has no --specs directory; only \"demo\" is known)", ErrUnknownSpec, name)
	}
	return "", fmt.Errorf("%w: %q is not in the worker's spec directory", ErrUnknownSpec, name)
}

// SpecLanguage is the language of the exam a dispatch names, read as a worker with the specs
// directory dir would find it (without dir, only the built-in demo is known).
func SpecLanguage(dir, name string) (string, error) {
	p, err := resolveSpec(dir, name)
	if err != nil {
		return "", err
	}
	exam, _, err := app.LoadSpec(p)
	if err != nil {
		return "", fmt.Errorf("spec %q: %w", name, err)
	}
	return exam.Language, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

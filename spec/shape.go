package spec

import (
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// Limits on what a loader reads. An exam spec or a candidate script is a few kilobytes nested a
// few levels deep; these bounds leave room for the largest real ones (a 500-node exam is about
// 300 KiB, 8 levels) while refusing hostile input before it costs anything: a parser that builds
// a tree of a 400 KiB document of nested brackets took 24 GB and 700 s.
const (
	// MaxSourceBytes is the largest spec or script a loader reads.
	MaxSourceBytes = 4 << 20
	// MaxDepth is how deeply mappings and sequences may nest.
	MaxDepth = 64
	// MaxValues bounds a spec's size in values (every key, item and scalar); a 500-node exam
	// has about 15,000.
	MaxValues = 200000
)

// ReadSource reads a spec or script from r, refusing one over MaxSourceBytes without reading
// more than one byte past the limit.
func ReadSource(name string, r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("spec: %s: %w", name, err)
	}
	if len(b) > MaxSourceBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d MiB", ErrTooLarge, name, MaxSourceBytes>>20)
	}
	return b, nil
}

// ReadSourceFile is ReadSource of the file at path.
func ReadSourceFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	defer f.Close()
	return ReadSource(path, f)
}

// CheckShape refuses a source too large, nested too deep or holding more than maxValues
// values to be a spec or a script, with the position where it goes too far. It parses with the fast parser (a document nested 50,000
// levels is refused in milliseconds), so a loader that then builds its own tree with a slower
// one (the script loader's goccy/go-yaml) never sees such input.
func CheckShape(name string, src []byte, maxValues int) *Diagnostic {
	if len(src) > MaxSourceBytes {
		return &Diagnostic{Pos: Pos{File: name, Line: 1, Col: 1}, Severity: Error,
			Message: fmt.Sprintf("larger than %d MiB: not an exam spec or script", MaxSourceBytes>>20)}
	}
	body, _, err := parse(src)
	if err != nil {
		d := syntaxError(name, src, err)
		return &d
	}
	return deepNode(name, body, maxValues)
}

// deepNode returns a diagnostic at the first node nested deeper than MaxDepth or past the
// first maxValues, or nil. It walks without recursion, so the walk itself cannot exhaust the
// stack.
func deepNode(name string, root *yaml.Node, maxValues int) *Diagnostic {
	if root == nil {
		return nil
	}
	type item struct {
		n     *yaml.Node
		depth int
	}
	stack := []item{{root, 1}}
	for seen := 1; len(stack) > 0; seen++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen > maxValues {
			return &Diagnostic{Pos: Pos{File: name, Line: max(it.n.Line, 1), Col: max(it.n.Column, 1)}, Severity: Error,
				Message: fmt.Sprintf("more than %d values: not an exam spec or script", maxValues)}
		}
		if it.depth > MaxDepth {
			return &Diagnostic{Pos: Pos{File: name, Line: max(it.n.Line, 1), Col: max(it.n.Column, 1)}, Severity: Error,
				Message: fmt.Sprintf("nested more than %d levels deep: not an exam spec or script", MaxDepth)}
		}
		for _, c := range it.n.Content {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	return nil
}

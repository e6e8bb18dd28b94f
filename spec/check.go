package spec

import (
	"fmt"
	"strings"
)

// checker collects diagnostics for one spec, positioned through the spec's source map.
type checker struct {
	s     *Spec
	src   *source
	diags Diagnostics
	// misspelt maps the valid spelling of each invalid signalType ("names_risk") to the one
	// written ("names-risk"): a reference to the valid spelling is then told where to fix it,
	// not offered the invalid one.
	misspelt map[string]string
}

func newChecker(s *Spec) *checker {
	src := s.src
	if src == nil {
		src = newSource("", 0)
	}
	return &checker{s: s, src: src}
}

// parent strips the last path element: "a.b[2]" -> "a.b", "a.b" -> "a".
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// at is the position of the value at path, falling back to the nearest enclosing value that
// was in the file (a missing field is reported at its parent mapping).
func (c *checker) at(path string) Pos {
	for p := path; ; p = parent(p) {
		if pos, ok := c.src.val[p]; ok {
			return pos
		}
		if pos, ok := c.src.key[p]; ok {
			return pos
		}
		if p == "" {
			break
		}
	}
	if c.s.src == nil {
		return Pos{File: c.src.file}
	}
	return Pos{File: c.src.file, Line: 1, Col: 1}
}

// keyAt is the position of the key that introduced path (for "this field should not be here").
func (c *checker) keyAt(path string) Pos {
	if pos, ok := c.src.key[path]; ok {
		return pos
	}
	return c.at(path)
}

// present reports whether the file had a value at path.
func (c *checker) present(path string) bool {
	_, ok := c.src.val[path]
	return ok
}

// given reports whether the file had a non-null value at path (null reads as absent).
func (c *checker) given(path string) bool { return c.present(path) && !c.src.null[path] }

// notEmpty reports an optional string that was written but left empty, where empty means
// nothing (a node id, an enum value, a tag): the JSON Schema rejects it too.
func (c *checker) notEmpty(path, value, what, hint string) {
	if value == "" && c.given(path) && !c.bad(path) {
		c.errorf(path, hint, "%s must not be empty", what)
	}
}

// useDefault is the hint for an optional field that has a default.
const useDefault = "leave the field out to use the default"

// bad reports whether the value at path failed to decode (already reported).
func (c *checker) bad(path string) bool { return c.src.bad[path] }

func (c *checker) add(p Pos, sev Severity, hint, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Pos: p, Severity: sev, Message: fmt.Sprintf(format, args...), Hint: hint})
}

func (c *checker) errorf(path, hint, format string, args ...any) {
	c.add(c.at(path), Error, hint, format, args...)
}

func (c *checker) warnf(path, hint, format string, args ...any) {
	c.add(c.at(path), Warning, hint, format, args...)
}

// required reports a missing or empty required string.
func (c *checker) required(path, value, what string) bool {
	if strings.TrimSpace(value) != "" {
		return true
	}
	if c.bad(path) {
		return false
	}
	if c.present(path) {
		c.errorf(path, "", "%s must not be empty", what)
	} else {
		c.errorf(path, "", "missing required field %s", what)
	}
	return false
}

// line renders the position of path briefly, for hints ("line 12").
func (c *checker) line(path string) string {
	p := c.at(path)
	if p.Line <= 0 {
		return path
	}
	return fmt.Sprintf("line %d", p.Line)
}

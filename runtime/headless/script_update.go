package headless

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/examtui/examtui/spec"
)

// UpdateExpectations rewrites the expect block of the script source src from a run of it
// (ExpectFrom): the turns, the spec line and every comment outside the expect block stay as
// written. The result is parsed again before it is returned, so a rewrite never produces a
// script that would not load.
func UpdateExpectations(name string, src []byte, old Expect, r *Result) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		top := len(l) > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '#' && strings.TrimSpace(l) != ""
		if start < 0 {
			if top && strings.HasPrefix(l, "expect:") {
				start = i
			}
			continue
		}
		if top {
			end = i
			break
		}
	}
	block := ExpectYAML(ExpectFrom(r, old))
	var b bytes.Buffer
	if start < 0 {
		b.WriteString(string(src))
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			b.WriteString("\n")
		}
		b.WriteString(block)
	} else {
		// Comments and blank lines at the end of the old block belong to what follows it.
		for end > start+1 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(lines[end-1], "#")) {
			end--
		}
		b.WriteString(strings.Join(lines[:start], ""))
		b.WriteString(block)
		b.WriteString(strings.Join(lines[end:], ""))
	}
	if _, err := ParseScript(name, b.Bytes()); err != nil {
		return nil, fmt.Errorf("rewritten script does not load: %w", err)
	}
	return b.Bytes(), nil
}

// UpdateScriptFile rewrites the expectations of the script file at path from a run of it.
func UpdateScriptFile(path string, s *Script, r *Result) error {
	src, err := spec.ReadSourceFile(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrScript, err)
	}
	out, err := UpdateExpectations(path, src, s.Expect, r)
	if err != nil {
		return err
	}
	if bytes.Equal(out, src) {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp := path + ".update~"
	if err := os.WriteFile(tmp, out, info.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Package examples holds the built-in exams and candidate scripts, embedded in the binary.
package examples

import (
	"bytes"
	"embed"
	"io/fs"
)

// DemoSpecName is the file name of the built-in demo exam.
const DemoSpecName = "hotel-breakfast.yaml"

// FS holds the example exams and candidate scripts.
//
//go:embed *.yaml
var FS embed.FS

// Demo returns the built-in demo exam's source.
func Demo() []byte {
	b, err := FS.ReadFile(DemoSpecName)
	if err != nil {
		panic("examples: demo exam missing from the binary: " + err.Error())
	}
	return b
}

// Scripts lists the candidate scripts (the files with turns), sorted; the other files are the
// exams they run.
func Scripts() []string {
	var out []string
	names, _ := fs.Glob(FS, "*.yaml")
	for _, n := range names {
		if b, err := FS.ReadFile(n); err == nil && bytes.Contains(b, []byte("\nturns:")) {
			out = append(out, n)
		}
	}
	return out
}

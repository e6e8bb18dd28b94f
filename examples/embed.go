// Package examples holds the built-in exams and candidate scripts, embedded in the binary.
package examples

import "embed"

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

package spec

import (
	"testing"

	"github.com/goccy/go-yaml/parser"
)

// BenchmarkParseOnly500 is the YAML parse alone (yaml.v3, what Load uses), for comparison
// with BenchmarkCompile500.
func BenchmarkParseOnly500(b *testing.B) {
	src := generatedExam(500)
	b.ReportAllocs()
	for b.Loop() {
		if body, _, err := parse(src); err != nil || body == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseGoccy500 is the same parse with goccy/go-yaml, which Load used before and
// still uses to position syntax errors.
func BenchmarkParseGoccy500(b *testing.B) {
	src := generatedExam(500)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parser.ParseBytes(src, 0); err != nil {
			b.Fatal(err)
		}
	}
}

package spec

import (
	"testing"

	"github.com/goccy/go-yaml/parser"
)

func BenchmarkParseOnly500(b *testing.B) {
	src := generatedExam(500)
	for b.Loop() {
		if _, err := parser.ParseBytes(src, 0); err != nil {
			b.Fatal(err)
		}
	}
}

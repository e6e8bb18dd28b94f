package spec

import (
	_ "embed"
)

// schemaJSON is the JSON Schema (draft 2020-12) of the exam format. It is written by hand so it
// can carry descriptions for editors; a test keeps it in step with the Go types.
//
//go:embed schema.json
var schemaJSON []byte

// JSONSchema returns the JSON Schema (draft 2020-12) of the exam specification format, usable
// by yaml-language-server (`# yaml-language-server: $schema=…`). The caller may keep the slice.
func JSONSchema() []byte {
	return append([]byte(nil), schemaJSON...)
}

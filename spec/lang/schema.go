package lang

import _ "embed"

//go:embed schema.json
var schemaJSON []byte

// JSONSchema returns the JSON Schema (draft 2020-12) of a language pack file. The caller may
// keep the slice.
func JSONSchema() []byte { return append([]byte(nil), schemaJSON...) }

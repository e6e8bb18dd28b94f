package spec

import (
	"bytes"
	"encoding/json"
)

// ExportIR renders the compiled exam as indented JSON with a trailing newline. The output is
// byte-identical for the same exam.
func ExportIR(e *Exam) ([]byte, error) {
	if e == nil {
		return nil, ErrNilExam
	}
	return marshalIndent(e)
}

// marshalIndent encodes without HTML escaping: authors' "&" and "<" stay readable.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

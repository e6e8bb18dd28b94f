package examgraph

import "errors"

// Named errors.
var (
	// ErrNilExam is returned when there is no compiled exam to describe.
	ErrNilExam = errors.New("examgraph: nil exam")
	// ErrFormat is returned for an unknown output format.
	ErrFormat = errors.New("examgraph: unknown format")
)

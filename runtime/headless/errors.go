package headless

import "errors"

// Named errors.
var (
	ErrScript         = errors.New("invalid candidate script")
	ErrExaminerKind   = errors.New("examiner kind not available")
	ErrSpec           = errors.New("cannot compile the script's spec")
	ErrExpectationSet = errors.New("expectation names something the exam does not have")
	ErrPauseMarker    = errors.New("invalid pause marker in a say line")
)

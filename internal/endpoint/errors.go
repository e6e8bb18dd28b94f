package endpoint

import "errors"

var (
	// ErrUnknownStage is a stage name that is not llm, stt or tts.
	ErrUnknownStage = errors.New("endpoint: unknown stage")
	// ErrInvalid is a malformed setting (base URL, timeout); the message names the variable.
	ErrInvalid = errors.New("endpoint: invalid setting")
)

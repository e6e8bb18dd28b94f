package openaitest

import "errors"

// Named errors.
var (
	ErrInvalidOption = errors.New("openaitest: invalid option")
	ErrSynthesis     = errors.New("openaitest: speech synthesis failed")
	ErrWAV           = errors.New("openaitest: not a PCM WAV stream")
)

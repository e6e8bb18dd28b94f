package audio

import "errors"

// Named errors. Callers test them with errors.Is; every returned error wraps one of these with
// the detail of what happened.
var (
	// ErrNoDevice means PortAudio found no usable device for the direction asked.
	ErrNoDevice = errors.New("no audio device")
	// ErrDeviceNotFound means --input-device / --output-device named a device that does not exist.
	ErrDeviceNotFound = errors.New("audio device not found")
	// ErrPortAudio wraps a failure inside PortAudio (initialise, open, start).
	ErrPortAudio = errors.New("portaudio")
	// ErrInvalidConfig is returned by constructors and options given values they cannot use.
	ErrInvalidConfig = errors.New("invalid audio configuration")
	// ErrInvalidWAV means a WAV file could not be parsed.
	ErrInvalidWAV = errors.New("invalid WAV data")
	// ErrUnsupportedFormat means a WAV file is well formed but in a sample format we do not read.
	ErrUnsupportedFormat = errors.New("unsupported audio format")
	// ErrClosed is returned by anything used after Close.
	ErrClosed = errors.New("audio closed")
	// ErrAlreadyStarted is returned by Start called twice.
	ErrAlreadyStarted = errors.New("already started")
	// ErrSTT wraps a speech-to-text provider failure.
	ErrSTT = errors.New("speech recognition failed")
	// ErrTTS wraps a text-to-speech provider failure.
	ErrTTS = errors.New("speech synthesis failed")
	// ErrNoSpeech means an utterance or a file held no speech the VAD could find.
	ErrNoSpeech = errors.New("no speech detected")
	// ErrWarm wraps a provider that could not be warmed (Warm); it is tried again when needed.
	ErrWarm = errors.New("provider not warmed")
)

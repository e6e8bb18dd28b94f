// Package audio is examtui's local voice: PortAudio capture and playback, an energy VAD with an
// adaptive noise floor, LiveKit-style endpointing, speech providers (OpenAI-compatible STT and
// TTS through go-openai; offline espeak-ng speech and pocketsphinx recognition on a fixed phrase
// grammar), WAV files, a two-track session recorder, and Voice, which ties capture →
// endpointing → recognition and text → synthesis → playback together with half-duplex or
// barge-in turn-taking.
//
// Everything inside the package runs on 16 kHz mono signed 16-bit PCM cut into 20 ms frames
// (SampleRate, FrameSamples); devices and providers at other rates are resampled at the edge
// with a windowed-sinc resampler, so the VAD and recognisers see one format only.
//
// The package knows nothing of the exam runtime: it produces transcripts (text, confidence,
// timing) and consumes text to speak. The LiveKit room transport lives in transport/livekit.
package audio

package openaitest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
)

const endpointSpeech = "/v1/audio/speech"

// SpeechSampleRate is the rate of OpenAI's pcm speech format (24 kHz, s16le, mono).
const SpeechSampleRate = 24000

// speechChunkBytes is 100 ms of 24 kHz s16 mono: the default streamed piece.
const speechChunkBytes = SpeechSampleRate * 2 / 10

// espeakVariants gives each OpenAI voice its own espeak-ng variant so voices differ audibly.
var espeakVariants = map[string]string{
	"alloy": "", "ash": "+m5", "ballad": "+m6", "coral": "+f3", "echo": "+m2", "fable": "+m4",
	"onyx": "+m1", "nova": "+f2", "sage": "+f5", "shimmer": "+f4", "verse": "+m7",
}

func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request) {
	var req SpeechRequest
	if !decodeJSON(w, r, &req) {
		return
	}
	s.update(r, func(rec *Request) { rec.Speech = &req })
	format := req.ResponseFormat
	if format == "" {
		format = "mp3"
	}
	speed := req.Speed
	if speed == 0 {
		speed = 1
	}
	var msg string
	switch {
	case req.Model == "":
		msg = "Missing required parameter: 'model'."
	case req.Input == "":
		msg = "Missing required parameter: 'input'."
	case req.Voice == "":
		msg = "Missing required parameter: 'voice'."
	case speed < 0.25 || speed > 4:
		msg = fmt.Sprintf("%g is greater than the maximum of 4 or less than the minimum of 0.25 - 'speed'", speed)
	case format != "wav" && format != "pcm":
		msg = "openaitest: response_format must be wav or pcm (no " + format + " encoder here)"
	}
	if msg != "" {
		badRequest(w, msg)
		return
	}

	b := s.next(&s.speechQ, func() Behaviour { return Synthesised(Delay(s.cfg.speechDelay)) })
	s.update(r, func(rec *Request) { rec.Behaviour = b.Kind })
	if !s.ready(w, r, b, endpointSpeech, KindSpeech) {
		return
	}
	pcm, err := Synthesize(r.Context(), s.cfg.espeak, s.cfg.voice+espeakVariants[req.Voice], req.Input, speed)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "", err.Error(), 0)
		return
	}
	audio := pcm.Bytes()
	if format == "wav" {
		w.Header().Set("Content-Type", "audio/wav")
		audio = append(WAVHeader(SpeechSampleRate, 1, len(audio)), audio...)
	} else {
		w.Header().Set("Content-Type", "audio/pcm")
	}
	w.WriteHeader(http.StatusOK)
	s.streamBytes(w, r, audio, b)
}

// streamBytes writes data in pieces with the behaviour's pacing, stall and cut.
func (s *Server) streamBytes(w http.ResponseWriter, r *http.Request, data []byte, b Behaviour) {
	size := b.ChunkBytes
	if size <= 0 {
		size = speechChunkBytes
	}
	flusher, _ := w.(http.Flusher)
	for sent := 1; len(data) > 0; sent++ {
		if sent > 1 && !s.wait(r, b.ChunkDelay) {
			return
		}
		n := min(size, len(data))
		if _, err := w.Write(data[:n]); err != nil {
			return
		}
		data = data[n:]
		if flusher != nil {
			flusher.Flush()
		}
		if s.cutOrStall(w, r, b, sent) {
			return
		}
	}
}

// Synthesize speaks text with espeak-ng and returns it as 24 kHz mono s16, OpenAI's pcm format.
// speed scales espeak-ng's default 175 words a minute.
func Synthesize(ctx context.Context, espeak, voice, text string, speed float64) (*PCM, error) {
	wpm := int(175 * speed)
	wpm = max(80, min(wpm, 450))
	// Text goes through stdin so input beginning with "-" is never read as a flag.
	cmd := exec.CommandContext(ctx, espeak, "--stdout", "--stdin", "-v", voice, "-s", strconv.Itoa(wpm))
	cmd.Stdin = strings.NewReader(text)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w: %s", ErrSynthesis, espeak, err, strings.TrimSpace(stderr.String()))
	}
	pcm, err := ReadWAV(&out)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSynthesis, err)
	}
	if len(pcm.Samples) == 0 {
		return nil, fmt.Errorf("%w: espeak-ng produced no audio for voice %q", ErrSynthesis, voice)
	}
	return Resample(pcm, SpeechSampleRate), nil
}

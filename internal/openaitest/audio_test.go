package openaitest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

// speak returns espeak-ng speech through the server's speech endpoint, as a client receives it.
func speak(t *testing.T, srv *openaitest.Server, req openai.CreateSpeechRequest) []byte {
	t.Helper()
	resp, err := client(srv).CreateSpeech(context.Background(), req)
	if err != nil {
		t.Fatalf("CreateSpeech: %v", err)
	}
	defer resp.Close()
	b, err := io.ReadAll(resp)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSpeech(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	srv := openaitest.New(t)
	const text = "Good morning. Please describe how you would set up the breakfast buffet."
	base := openai.CreateSpeechRequest{Model: openai.TTSModel1, Input: text, Voice: openai.VoiceAlloy}

	pcmReq := base
	pcmReq.ResponseFormat = openai.SpeechResponseFormatPcm
	raw := speak(t, srv, pcmReq)
	if len(raw)%2 != 0 {
		t.Fatalf("pcm length %d is odd", len(raw))
	}
	pcm := &openaitest.PCM{SampleRate: openaitest.SpeechSampleRate, Channels: 1, Samples: make([]int16, len(raw)/2)}
	for i := range pcm.Samples {
		pcm.Samples[i] = int16(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
	}
	// About a dozen words at espeak-ng's 175 words a minute: several seconds, clearly not silence.
	if d := pcm.Duration(); d < 2*time.Second || d > 12*time.Second {
		t.Errorf("speech lasts %v", d)
	}
	if r := audio.RMS(pcm.Samples); r < 300 {
		t.Errorf("speech RMS %.0f: silence?", r)
	}

	wavReq := base
	wavReq.ResponseFormat = openai.SpeechResponseFormatWav
	wavBytes := speak(t, srv, wavReq)
	wav, err := openaitest.ReadWAV(bytes.NewReader(wavBytes))
	if err != nil {
		t.Fatal(err)
	}
	if wav.SampleRate != 24000 || wav.Channels != 1 || len(wav.Samples) != len(pcm.Samples) {
		t.Errorf("wav %d Hz %d ch %d samples; pcm had %d", wav.SampleRate, wav.Channels, len(wav.Samples), len(pcm.Samples))
	}

	fast := pcmReq
	fast.Speed = 2
	if fastLen := len(speak(t, srv, fast)); fastLen >= len(raw)*3/4 {
		t.Errorf("speed 2 gave %d bytes, speed 1 gave %d: not faster", fastLen, len(raw))
	}

	reqs := srv.Requests()
	if reqs[0].Speech == nil || reqs[0].Speech.Input != text || reqs[0].Speech.ResponseFormat != "pcm" || reqs[0].Behaviour != openaitest.KindSpeech {
		t.Errorf("recorded speech = %+v", reqs[0].Speech)
	}
}

func TestSpeechStreamedInPieces(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	srv := openaitest.New(t)
	srv.EnqueueSpeech(openaitest.Synthesised(openaitest.Streamed(960, time.Millisecond)))
	resp, err := client(srv).CreateSpeech(context.Background(), openai.CreateSpeechRequest{
		Model: openai.TTSModel1, Input: "One two three.", Voice: openai.VoiceNova, ResponseFormat: openai.SpeechResponseFormatPcm,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	reads, total := 0, 0
	buf := make([]byte, 4096)
	for {
		n, err := resp.Read(buf)
		if n > 0 {
			reads++
			total += n
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Paced 960-byte pieces arrive separately; a 4096-byte buffer would otherwise swallow several.
	if total == 0 || reads < total/960/2 {
		t.Errorf("%d bytes in %d reads: not streamed", total, reads)
	}
}

func TestSpeechErrors(t *testing.T) {
	tests := []struct {
		name  string
		queue []openaitest.Behaviour
		req   openai.CreateSpeechRequest
		code  int
		msg   string
	}{
		{"mp3 unsupported", nil, openai.CreateSpeechRequest{Model: "tts-1", Input: "hi", Voice: "alloy"}, 400, "wav or pcm"},
		{"no input", nil, openai.CreateSpeechRequest{Model: "tts-1", Voice: "alloy", ResponseFormat: "pcm"}, 400, "'input'"},
		{"bad speed", nil, openai.CreateSpeechRequest{Model: "tts-1", Input: "hi", Voice: "alloy", ResponseFormat: "pcm", Speed: 9}, 400, "speed"},
		{"scripted 503", []openaitest.Behaviour{openaitest.Status(503)}, openai.CreateSpeechRequest{Model: "tts-1", Input: "hi", Voice: "alloy", ResponseFormat: "pcm"}, 503, "overloaded"},
		{"misuse", []openaitest.Behaviour{openaitest.Content("x")}, openai.CreateSpeechRequest{Model: "tts-1", Input: "hi", Voice: "alloy", ResponseFormat: "pcm"}, 500, "cannot answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.EnqueueSpeech(tt.queue...)
			_, err := client(srv).CreateSpeech(context.Background(), tt.req)
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != tt.code || !strings.Contains(apiErr.Message, tt.msg) {
				t.Errorf("err = %v, want %d with %q", err, tt.code, tt.msg)
			}
		})
	}
}

func TestTranscription(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	srv := openaitest.New(t)
	// Real speech to upload: the server's own synthesis, as a WAV file.
	wav := speak(t, srv, openai.CreateSpeechRequest{Model: "tts-1", Input: "The buffet opens at seven.", Voice: "alloy", ResponseFormat: "wav"})
	audio, err := openaitest.ReadWAV(bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	seconds := audio.Duration().Seconds()

	scripted := openaitest.Transcript{Text: "The buffet opens at seven.", Segments: []openaitest.Segment{
		{Start: 0, End: 0.8, Text: "The buffet", AvgLogprob: -0.1, NoSpeechProb: 0.01},
		{Start: 0.8, End: 1.9, Text: " opens at seven.", AvgLogprob: -1.2, NoSpeechProb: 0.3},
	}}
	tests := []struct {
		name     string
		format   openai.AudioResponseFormat
		tr       openaitest.Transcript
		wantSegs int
		wantDur  float64
	}{
		{"json", openai.AudioResponseFormatJSON, scripted, 0, 0},
		{"default format", "", scripted, 0, 0},
		{"text", openai.AudioResponseFormatText, scripted, 0, 0},
		{"verbose_json with segments", openai.AudioResponseFormatVerboseJSON, scripted, 2, seconds},
		{"verbose_json one synthesised segment", openai.AudioResponseFormatVerboseJSON, openaitest.Transcript{Text: "The buffet opens at seven.", Duration: 2.5}, 1, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.EnqueueTranscription(openaitest.Transcribed(tt.tr))
			resp, err := client(srv).CreateTranscription(context.Background(), openai.AudioRequest{
				Model: openai.Whisper1, Reader: bytes.NewReader(wav), FilePath: "turn.wav", Language: "en", Format: tt.format,
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(resp.Text) != tt.tr.Text {
				t.Errorf("text = %q", resp.Text)
			}
			if len(resp.Segments) != tt.wantSegs {
				t.Fatalf("segments = %d, want %d", len(resp.Segments), tt.wantSegs)
			}
			if tt.wantSegs == 0 {
				return
			}
			if math.Abs(resp.Duration-tt.wantDur) > 0.01 || resp.Language != "english" {
				t.Errorf("duration %.3f (want %.3f) language %q", resp.Duration, tt.wantDur, resp.Language)
			}
			if tt.wantSegs == 2 {
				s := resp.Segments[1]
				if s.Start != 0.8 || s.End != 1.9 || s.AvgLogprob != -1.2 || s.NoSpeechProb != 0.3 || s.Text != " opens at seven." {
					t.Errorf("segment = %+v", s)
				}
			} else if s := resp.Segments[0]; s.End != tt.wantDur || s.Text != tt.tr.Text || s.AvgLogprob >= 0 {
				t.Errorf("synthesised segment = %+v", s)
			}
		})
	}
	var last *openaitest.TranscriptionRequest
	for _, r := range srv.Requests() {
		if r.Transcription != nil {
			last = r.Transcription
		}
	}
	if last == nil || !bytes.Equal(last.File, wav) || last.FileName != "turn.wav" || last.Model != "whisper-1" || last.Language != "en" || last.ResponseFormat != "verbose_json" {
		t.Errorf("recorded transcription request: %+v", last)
	}
}

func TestTranscriptionErrors(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithTranscriber(func(r *openaitest.TranscriptionRequest) openaitest.Behaviour {
		return openaitest.Transcribed(openaitest.Transcript{Text: "default for " + r.FileName})
	}))
	do := func(format openai.AudioResponseFormat) (openai.AudioResponse, error) {
		return client(srv).CreateTranscription(context.Background(), openai.AudioRequest{
			Model: openai.Whisper1, Reader: strings.NewReader("not audio"), FilePath: "x.wav", Format: format,
		})
	}
	resp, err := do("")
	if err != nil || resp.Text != "default for x.wav" {
		t.Errorf("default transcriber: %q, %v", resp.Text, err)
	}
	srv.EnqueueTranscription(openaitest.RateLimited(time.Second))
	var apiErr *openai.APIError
	if _, err := do(""); !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 {
		t.Errorf("scripted 429: %v", err)
	}
	if _, err := do(openai.AudioResponseFormatSRT); !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 {
		t.Errorf("srt: %v", err)
	}
	// verbose_json of a file that is not WAV still answers, with duration 0.
	resp, err = do(openai.AudioResponseFormatVerboseJSON)
	if err != nil || resp.Duration != 0 || len(resp.Segments) != 1 {
		t.Errorf("non-WAV verbose: %+v, %v", resp, err)
	}
}

package audio

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAIRecognizer transcribes through an OpenAI-compatible /audio/transcriptions endpoint
// (OpenAI, faster-whisper servers, llama.cpp, vLLM) with go-openai.
type OpenAIRecognizer struct {
	client   *openai.Client
	model    string
	language string
	prompt   string
	format   openai.AudioResponseFormat
	timeout  time.Duration
	log      *slog.Logger
}

// OpenAISTTOption configures NewOpenAIRecognizer.
type OpenAISTTOption func(*OpenAIRecognizer) error

// WithSTTModel sets the model (default "whisper-1").
func WithSTTModel(m string) OpenAISTTOption {
	return func(r *OpenAIRecognizer) error { return setNonBlank(&r.model, m, "STT model") }
}

// WithSTTLanguage sets the ISO-639-1 language hint ("en"); a BCP-47 tag is cut to its language.
func WithSTTLanguage(lang string) OpenAISTTOption {
	return func(r *OpenAIRecognizer) error {
		lang = strings.ToLower(strings.TrimSpace(lang))
		if i := strings.IndexAny(lang, "-_"); i >= 0 {
			lang = lang[:i]
		}
		if len(lang) < 2 || len(lang) > 3 {
			return fmt.Errorf("%w: STT language %q", ErrInvalidConfig, lang)
		}
		r.language = lang
		return nil
	}
}

// WithSTTPrompt sets a prompt that biases the vocabulary (e.g. the exam's topic words).
func WithSTTPrompt(p string) OpenAISTTOption {
	return func(r *OpenAIRecognizer) error { r.prompt = p; return nil }
}

// WithSTTPlainJSON asks for response_format json (text only) for servers without verbose_json;
// confidence is then unknown (1).
func WithSTTPlainJSON() OpenAISTTOption {
	return func(r *OpenAIRecognizer) error { r.format = openai.AudioResponseFormatJSON; return nil }
}

// WithSTTTimeout bounds one transcription request (default 30 s).
func WithSTTTimeout(d time.Duration) OpenAISTTOption {
	return func(r *OpenAIRecognizer) error {
		if d <= 0 {
			return fmt.Errorf("%w: STT timeout %v", ErrInvalidConfig, d)
		}
		r.timeout = d
		return nil
	}
}

// WithSTTLogger sets the logger.
func WithSTTLogger(l *slog.Logger) OpenAISTTOption {
	return func(r *OpenAIRecognizer) error { return setLogger(&r.log, l) }
}

// NewOpenAIRecognizer returns a recognizer for baseURL (ending in /v1) with apiKey; httpClient
// may be nil for http.DefaultClient.
func NewOpenAIRecognizer(baseURL, apiKey string, httpClient *http.Client, opts ...OpenAISTTOption) (*OpenAIRecognizer, error) {
	client, err := newOpenAIClient(baseURL, apiKey, httpClient)
	if err != nil {
		return nil, err
	}
	r := &OpenAIRecognizer{
		client:  client,
		model:   openai.Whisper1,
		format:  openai.AudioResponseFormatVerboseJSON,
		timeout: 30 * time.Second,
		log:     slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		if err := o(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Transcribe uploads the utterance as a 16 kHz WAV file and maps the answer.
func (r *OpenAIRecognizer) Transcribe(ctx context.Context, u Utterance) (Transcript, error) {
	if len(u.Samples) == 0 {
		return Transcript{}, fmt.Errorf("%w: %w: empty utterance", ErrSTT, ErrNoSpeech)
	}
	var wav bytes.Buffer
	if err := WriteWAV(&wav, u.Samples, SampleRate); err != nil {
		return Transcript{}, fmt.Errorf("%w: %w", ErrSTT, err)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	start := time.Now()
	resp, err := r.client.CreateTranscription(ctx, openai.AudioRequest{
		Model:    r.model,
		FilePath: "utterance.wav",
		Reader:   &wav,
		Prompt:   r.prompt,
		Language: r.language,
		Format:   r.format,
	})
	if err != nil {
		return Transcript{}, fmt.Errorf("%w: %s: %w", ErrSTT, r.model, err)
	}
	t := Transcript{
		Text:     strings.TrimSpace(resp.Text),
		Language: resp.Language,
		Duration: time.Duration(resp.Duration * float64(time.Second)),
		IsFinal:  true,
	}
	if t.Duration == 0 {
		t.Duration = time.Duration(len(u.Samples)) * time.Second / SampleRate
	}
	for _, s := range resp.Segments {
		t.Segments = append(t.Segments, Segment{
			Text:         strings.TrimSpace(s.Text),
			StartMs:      int64(math.Round(s.Start * 1000)),
			EndMs:        int64(math.Round(s.End * 1000)),
			Confidence:   SegmentConfidence(s.AvgLogprob, s.NoSpeechProb),
			AvgLogprob:   s.AvgLogprob,
			NoSpeechProb: s.NoSpeechProb,
		})
	}
	t.summarize()
	r.log.Debug("transcribed", "model", r.model, "chars", len(t.Text), "confidence", t.Confidence, "ms", time.Since(start).Milliseconds())
	return t, nil
}

// BilledModel implements Billed: the model each transcription request names.
func (r *OpenAIRecognizer) BilledModel() string { return r.model }

package endpoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/httpbound"
	"github.com/examtui/examtui/runtime/llm"
)

// DefaultCheckTimeout bounds one check when the stage sets no timeout of its own.
const DefaultCheckTimeout = 10 * time.Second

// Result is what one stage's check found. It holds no key: only whether one is set.
type Result struct {
	Stage   Stage         `json:"-"`
	Name    string        `json:"stage"`
	Status  Status        `json:"status"`
	Reason  Reason        `json:"reason,omitempty"`
	Detail  string        `json:"detail"` // one plain sentence
	BaseURL string        `json:"baseURL,omitempty"`
	Model   string        `json:"model,omitempty"`
	KeySet  bool          `json:"keySet"`
	Shared  bool          `json:"shared"` // the endpoint came from the shared OPENAI_* settings
	Elapsed time.Duration `json:"-"`
	Ms      int64         `json:"ms"`
}

// Check makes one tiny request to the stage's endpoint: a 1-token chat completion for the LLM,
// half a second of silence to transcribe for STT, one word to speak for TTS, each through the
// client the exam uses. hc may be nil (the default client).
func Check(ctx context.Context, ep Endpoint, hc *http.Client) Result {
	r := Result{Stage: ep.Stage, Name: ep.Stage.String(), BaseURL: redactURL(ep.BaseURL), Model: ep.Model, KeySet: ep.APIKey != "", Shared: ep.Shared}
	if !ep.Configured {
		r.BaseURL = ""
		r.Status, r.Detail = StatusNotConfigured, notConfigured[ep.Stage]
		return r
	}
	timeout := ep.Timeout
	if timeout <= 0 {
		timeout = DefaultCheckTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The reply is bounded like the exam's own (size by kind, the whole body within the
	// timeout), so a hostile or broken server fails the check instead of filling memory.
	hc = httpbound.MustClient(ep.Stage.ReplyKind(), hc, timeout)
	start := time.Now()
	var err error
	switch ep.Stage {
	case StageLLM, StageMark:
		err = checkLLM(ctx, ep, hc)
	case StageSTT:
		err = checkSTT(ctx, ep, hc)
	case StageTTS:
		err = checkTTS(ctx, ep, hc)
	default:
		err = fmt.Errorf("%w: %v", ErrUnknownStage, ep.Stage)
	}
	r.Elapsed = time.Since(start)
	r.Ms = r.Elapsed.Milliseconds()
	if err == nil {
		r.Status, r.Detail = StatusOK, works[ep.Stage]
		return r
	}
	r.Status = StatusFailed
	r.Reason, r.Detail = explain(ep, err, timeout)
	if ep.APIKey != "" {
		// A server may echo the key it refused; doctor never prints one.
		r.Detail = strings.ReplaceAll(r.Detail, ep.APIKey, "[key]")
	}
	return r
}

var notConfigured = map[Stage]string{
	StageLLM:  "not configured: exams use the offline examiner (set EXAMTUI_LLM_BASE_URL or OPENAI_BASE_URL)",
	StageSTT:  "not configured: spoken answers are not recognised, candidates type (set EXAMTUI_STT_BASE_URL or OPENAI_BASE_URL)",
	StageTTS:  "not configured: the examiner speaks with espeak-ng (set EXAMTUI_TTS_BASE_URL or OPENAI_BASE_URL)",
	StageMark: "not configured: marks propose --panel has no model unless the config file lists panel members (set EXAMTUI_MARK_BASE_URL or OPENAI_BASE_URL)",
}

var works = map[Stage]string{
	StageLLM:  "works: answered a 1-token chat completion",
	StageSTT:  "works: transcribed half a second of silence",
	StageTTS:  "works: spoke one word",
	StageMark: "works: answered a 1-token chat completion",
}

func client(ep Endpoint, hc *http.Client) *openai.Client {
	cfg := openai.DefaultConfig(ep.APIKey)
	cfg.BaseURL = strings.TrimRight(ep.BaseURL, "/")
	if hc != nil {
		cfg.HTTPClient = hc
	}
	return openai.NewClientWithConfig(cfg)
}

func checkLLM(ctx context.Context, ep Endpoint, hc *http.Client) error {
	req := openai.ChatCompletionRequest{
		Model:    ep.Model,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Say OK."}},
	}
	// max_tokens is what local servers document (Ollama, llama.cpp, vLLM); OpenAI's reasoning
	// models accept only max_completion_tokens.
	if llm.ReasoningModel(ep.Model) {
		req.MaxCompletionTokens = 1
	} else {
		req.MaxTokens = 1 //lint:ignore SA1019 the field local servers read
	}
	resp, err := client(ep, hc).CreateChatCompletion(ctx, req)
	if err != nil {
		return err
	}
	if len(resp.Choices) == 0 {
		return fmt.Errorf("%w: the reply has no choices", errBadReply)
	}
	return nil
}

func checkSTT(ctx context.Context, ep Endpoint, hc *http.Client) error {
	opts := []audio.OpenAISTTOption{audio.WithSTTLogger(slog.New(slog.DiscardHandler))}
	if ep.Model != "" {
		opts = append(opts, audio.WithSTTModel(ep.Model))
	}
	rec, err := audio.NewOpenAIRecognizer(ep.BaseURL, ep.APIKey, hc, opts...)
	if err != nil {
		return err
	}
	_, err = rec.Transcribe(ctx, audio.Utterance{Samples: make([]int16, audio.SampleRate/2)})
	return err
}

func checkTTS(ctx context.Context, ep Endpoint, hc *http.Client) error {
	var opts []audio.OpenAITTSOption
	if ep.Model != "" {
		opts = append(opts, audio.WithTTSModel(ep.Model))
	}
	s, err := audio.NewOpenAISpeech(ep.BaseURL, ep.APIKey, hc, opts...)
	if err != nil {
		return err
	}
	clip, err := s.Synthesize(ctx, "Hello.", audio.SpeakOptions{})
	if err != nil {
		return err
	}
	if len(clip.Samples) == 0 {
		return fmt.Errorf("%w: no audio in the answer", errBadReply)
	}
	return nil
}

var errBadReply = errors.New("unexpected answer")

// explain turns a failed check's error into a reason and a plain sentence.
func explain(ep Endpoint, err error, timeout time.Duration) (Reason, string) {
	path := map[Stage]string{StageLLM: "/chat/completions", StageMark: "/chat/completions", StageSTT: "/audio/transcriptions", StageTTS: "/audio/speech"}[ep.Stage]
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status, msg := 0, ""
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
		if code, ok := apiErr.Code.(string); ok && code == "model_not_found" {
			return ReasonNoSuchModel, fmt.Sprintf("no such model: the server has no model %q (HTTP %d)", ep.Model, status)
		}
	case errors.As(err, &reqErr):
		status, msg = reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	msg = oneLine(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		key := "the key was refused"
		if ep.APIKey == "" {
			key = "no key is set for this stage"
			if !ep.Shared {
				key += " (a stage with its own base URL does not use OPENAI_API_KEY: set " + ep.Stage.EnvAPIKey() + ")"
			}
		}
		return ReasonUnauthorized, fmt.Sprintf("unauthorized (HTTP %d): %s", status, key)
	case status == http.StatusNotFound && strings.Contains(strings.ToLower(msg), "model"):
		return ReasonNoSuchModel, fmt.Sprintf("no such model %q (HTTP 404: %s)", ep.Model, msg)
	case status == http.StatusNotFound && ep.Stage != StageLLM && ep.Stage != StageMark:
		return ReasonNoAudioEndpoint, fmt.Sprintf("no audio endpoint: the server answered 404 to %s%s; it serves chat only? point %s at a speech server", redactURL(ep.BaseURL), path, ep.Stage.EnvBaseURL())
	case status == http.StatusNotFound:
		return ReasonNoChatEndpoint, fmt.Sprintf("no chat endpoint: the server answered 404 to %s%s (does the base URL end in /v1?)", redactURL(ep.BaseURL), path)
	case status != 0:
		return ReasonHTTPError, fmt.Sprintf("HTTP %d: %s", status, msg)
	case errors.Is(err, httpbound.ErrTooLarge):
		return ReasonTooLarge, "too large: " + oneLine(err.Error())
	case errors.Is(err, httpbound.ErrTimeout):
		return ReasonTimeout, fmt.Sprintf("timeout: no whole answer within %v", timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return ReasonRefused, fmt.Sprintf("connection refused: nothing listens at %s (is the server running?)", redactURL(ep.BaseURL))
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return ReasonTimeout, fmt.Sprintf("timeout: no answer within %v", timeout)
	case errors.Is(err, errBadReply):
		return ReasonBadReply, "the server answered, but not as " + path + " should: " + oneLine(err.Error())
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
		return ReasonUnreachable, "unreachable: " + oneLine(err.Error())
	}
	return ReasonBadReply, oneLine(err.Error())
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// oneLine keeps a server's message short and on one line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

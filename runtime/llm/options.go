package llm

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Defaults.
const (
	DefaultModel          = "gpt-4o-mini"
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultTemperature    = 0.2
	DefaultRequestTimeout = 20 * time.Second
	DefaultTurnDeadline   = 30 * time.Second
	DefaultMaxRetries     = 2
	DefaultBackoffBase    = 250 * time.Millisecond
	DefaultBackoffMax     = 4 * time.Second
	maxRetriesLimit       = 10
)

// ToolChoice is how the request asks for the tool.
type ToolChoice int

// Tool choice modes. Some local servers accept only the string forms.
const (
	// ToolChoiceFunction forces the node's function by name (OpenAI's strongest form).
	ToolChoiceFunction ToolChoice = iota
	// ToolChoiceRequired sends "required": some tool must be called.
	ToolChoiceRequired
	// ToolChoiceAuto sends "auto": the model may answer in text.
	ToolChoiceAuto
)

func (c ToolChoice) String() string {
	switch c {
	case ToolChoiceFunction:
		return "function"
	case ToolChoiceRequired:
		return "required"
	case ToolChoiceAuto:
		return "auto"
	default:
		return fmt.Sprintf("ToolChoice(%d)", int(c))
	}
}

// Option configures an Examiner.
type Option func(*config) error

type config struct {
	baseURL        string
	apiKey         string
	model          string
	httpClient     *http.Client
	streaming      bool
	requestTimeout time.Duration
	turnDeadline   time.Duration
	maxRetries     int
	backoffBase    time.Duration
	backoffMax     time.Duration
	temperature    float32
	developerRole  bool
	toolChoice     ToolChoice
	logger         *slog.Logger
	firstToken     time.Duration
	maxReplyBytes  int64
}

func defaultConfig() config {
	return config{
		model:          DefaultModel,
		streaming:      true,
		requestTimeout: DefaultRequestTimeout,
		turnDeadline:   DefaultTurnDeadline,
		maxRetries:     DefaultMaxRetries,
		backoffBase:    DefaultBackoffBase,
		backoffMax:     DefaultBackoffMax,
		temperature:    DefaultTemperature,
		toolChoice:     ToolChoiceFunction,
		logger:         slog.New(slog.DiscardHandler),
		firstToken:     DefaultFirstTokenTimeout,
		maxReplyBytes:  DefaultMaxReplyBytes,
	}
}

// WithBaseURL sets the OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1.
func WithBaseURL(u string) Option {
	return func(c *config) error {
		p, err := url.Parse(u)
		if err != nil {
			return fmt.Errorf("%w: base URL: %w", ErrInvalidOption, err)
		}
		if (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%w: base URL %q: want http(s)://host[/path]", ErrInvalidOption, p.Redacted())
		}
		c.baseURL = u
		return nil
	}
}

// WithAPIKey sets the bearer key. Local servers usually need none.
func WithAPIKey(key string) Option {
	return func(c *config) error { c.apiKey = key; return nil }
}

// WithModel sets the model name (also the examiner's Name).
func WithModel(model string) Option {
	return func(c *config) error {
		if model == "" {
			return fmt.Errorf("%w: empty model", ErrInvalidOption)
		}
		c.model = model
		return nil
	}
}

// WithHTTPClient sets the HTTP client. The examiner wraps a copy's transport to read
// Retry-After; the client passed in is not modified.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return fmt.Errorf("%w: nil HTTP client", ErrInvalidOption)
		}
		c.httpClient = hc
		return nil
	}
}

// WithStreaming turns streaming on (the default) or off.
func WithStreaming(on bool) Option {
	return func(c *config) error { c.streaming = on; return nil }
}

// WithRequestTimeout bounds one attempt, stream included.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: request timeout %v", ErrInvalidOption, d)
		}
		c.requestTimeout = d
		return nil
	}
}

// WithTurnDeadline bounds a whole Observe call, retries and backoff included.
func WithTurnDeadline(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: turn deadline %v", ErrInvalidOption, d)
		}
		c.turnDeadline = d
		return nil
	}
}

// WithMaxRetries sets how many times a retryable failure is retried (0 to 10).
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		if n < 0 || n > maxRetriesLimit {
			return fmt.Errorf("%w: max retries %d (want 0..%d)", ErrInvalidOption, n, maxRetriesLimit)
		}
		c.maxRetries = n
		return nil
	}
}

// WithBackoff sets the first retry's backoff and the cap; each retry doubles it, with jitter.
func WithBackoff(base, maxWait time.Duration) Option {
	return func(c *config) error {
		if base <= 0 || maxWait < base {
			return fmt.Errorf("%w: backoff %v..%v", ErrInvalidOption, base, maxWait)
		}
		c.backoffBase, c.backoffMax = base, maxWait
		return nil
	}
}

// WithTemperature sets the sampling temperature (0 < t <= 2). Reasoning models (o1, o3, o4,
// gpt-5) reject a temperature, so none is sent for them.
func WithTemperature(t float32) Option {
	return func(c *config) error {
		if t <= 0 || t > 2 {
			return fmt.Errorf("%w: temperature %v (want 0 < t <= 2)", ErrInvalidOption, t)
		}
		c.temperature = t
		return nil
	}
}

// WithDeveloperRole sends "developer" messages as such. Off by default: they are sent as
// "system", which every server accepts and many local ones require.
func WithDeveloperRole(on bool) Option {
	return func(c *config) error { c.developerRole = on; return nil }
}

// WithToolChoice sets how the tool is requested (default ToolChoiceFunction).
func WithToolChoice(tc ToolChoice) Option {
	return func(c *config) error {
		if tc < ToolChoiceFunction || tc > ToolChoiceAuto {
			return fmt.Errorf("%w: %v", ErrInvalidOption, tc)
		}
		c.toolChoice = tc
		return nil
	}
}

// WithLogger sets the logger (default: discard). The API key is never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		c.logger = l
		return nil
	}
}

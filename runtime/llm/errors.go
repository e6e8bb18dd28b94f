package llm

import "errors"

// Named errors. Errors from Observe wrap one of these with %w; a failed HTTP status also comes
// as a *StatusError (errors.As) with the code, OpenAI's error type and Retry-After.
var (
	// ErrNotConfigured means neither an endpoint nor an API key is set: use the offline examiner.
	ErrNotConfigured = errors.New("llm: no OpenAI endpoint or API key configured (set OPENAI_API_KEY or OPENAI_BASE_URL)")
	ErrInvalidOption = errors.New("llm: invalid option")
	// ErrInvalidRequest is a turn that cannot be sent (no node, not exactly one function, no
	// messages, an unknown role) or that the client library refuses before sending.
	ErrInvalidRequest = errors.New("llm: invalid examiner request")

	ErrRateLimited = errors.New("llm: rate limited (HTTP 429)")
	ErrServer      = errors.New("llm: server error (HTTP 5xx)")
	ErrAuth        = errors.New("llm: authentication failed (HTTP 401/403)")
	ErrBadRequest  = errors.New("llm: request rejected (HTTP 4xx)")
	ErrTransport   = errors.New("llm: transport error")
	ErrBadResponse = errors.New("llm: malformed response")
	ErrEmpty       = errors.New("llm: response has no choices")
	// ErrSummary wraps why a summary call (Summarise) failed.
	ErrSummary = errors.New("llm: summary call failed")
	// ErrInterrupted is a stream that failed after partial arguments were handed to OnArguments.
	ErrInterrupted = errors.New("llm: stream interrupted after partial arguments")
	// ErrTimeout is one attempt exceeding the per-request timeout.
	ErrTimeout = errors.New("llm: request timed out")
	// ErrDeadline is the turn deadline passing, across all attempts.
	ErrDeadline = errors.New("llm: turn deadline exceeded")
	// ErrCanceled is the caller's context ending the turn.
	ErrCanceled = errors.New("llm: canceled")
	// ErrRetriesExhausted wraps the last retryable failure when every attempt failed.
	ErrRetriesExhausted = errors.New("llm: retries exhausted")
)

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

// StatusError is an HTTP error answer from the endpoint. It unwraps to its class: ErrRateLimited,
// ErrServer, ErrAuth or ErrBadRequest.
type StatusError struct {
	StatusCode int
	Type       string // OpenAI's error type, e.g. "invalid_request_error"
	Code       string // OpenAI's error code, e.g. "rate_limit_exceeded"
	Message    string // redacted of the API key
	RetryAfter time.Duration
	class      error
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%v: HTTP %d", e.class, e.StatusCode)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %v)", e.RetryAfter)
	}
	return s
}

func (e *StatusError) Unwrap() error { return e.class }

// redactedError shows a cause with the API key masked while keeping it for errors.Is/As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (e *Examiner) redact(s string) string {
	if len(e.cfg.apiKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, e.cfg.apiKey, "[REDACTED]")
}

func (e *Examiner) redactErr(err error) error {
	return &redactedError{msg: e.redact(err.Error()), err: err}
}

// classify turns one attempt's failure into a named error and says whether to retry.
// attemptEnded says the per-request context had ended; turnCtx is the whole turn's. A nil error
// means the turn itself ended, which the caller reports.
func (e *Examiner) classify(err error, meta *respMeta, attemptEnded bool, turnCtx context.Context) (error, bool) {
	if turnCtx.Err() != nil {
		return nil, false
	}
	if attemptEnded {
		return fmt.Errorf("%w after %v: %w", ErrTimeout, e.cfg.requestTimeout, e.redactErr(err)), true
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status := 0
	se := &StatusError{RetryAfter: meta.retryAfter}
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
		se.Type, se.Message = apiErr.Type, e.redact(apiErr.Message)
		if c, ok := apiErr.Code.(string); ok {
			se.Code = c
		} else if apiErr.Code != nil {
			se.Code = fmt.Sprint(apiErr.Code)
		}
		if status == 0 {
			// An error event inside a stream: the server failed mid-reply.
			status = meta.status
			if status < 500 {
				status = http.StatusInternalServerError
			}
		}
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		se.Message = e.redact(strings.TrimSpace(string(reqErr.Body)))
		if len(se.Message) > 300 {
			se.Message = se.Message[:300] + "…"
		}
	case isLocalRefusal(err):
		return fmt.Errorf("%w: %w", ErrInvalidRequest, e.redactErr(err)), false
	case errors.Is(err, ErrEmpty):
		return err, true
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return fmt.Errorf("%w: %w", ErrBadResponse, err), true
	default:
		if isDecodeError(err) {
			return fmt.Errorf("%w: %w", ErrBadResponse, e.redactErr(err)), true
		}
		return fmt.Errorf("%w: %w", ErrTransport, e.redactErr(err)), true
	}
	se.StatusCode = status
	switch {
	case status == http.StatusTooManyRequests:
		se.class = ErrRateLimited
		return se, true
	case status >= 500:
		se.class = ErrServer
		return se, true
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		se.class = ErrAuth
		return se, false
	default:
		se.class = ErrBadRequest
		return se, false
	}
}

// isLocalRefusal reports go-openai refusing a request before sending it.
func isLocalRefusal(err error) bool {
	for _, target := range []error{
		openai.ErrChatCompletionInvalidModel, openai.ErrChatCompletionStreamNotSupported,
		openai.ErrReasoningModelMaxTokensDeprecated, openai.ErrReasoningModelLimitationsLogprobs,
		openai.ErrReasoningModelLimitationsOther, openai.ErrReasoningToolsRequireResponses,
		openai.ErrReasoningSamplingUnsupported, openai.ErrReasoningEffortUnsupported,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// isDecodeError reports a response body that is not the JSON it should be.
func isDecodeError(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ)
}

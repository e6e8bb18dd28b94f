package endpoint

import "fmt"

// Status is a stage's health as doctor found it.
type Status int

// Statuses. The zero value is unknown.
const (
	StatusUnknown Status = iota
	StatusOK
	StatusFailed
	// StatusNotConfigured: no endpoint applies; the stage runs offline (the offline examiner,
	// typed answers, espeak-ng), which is not a failure.
	StatusNotConfigured
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusFailed:
		return "failed"
	case StatusNotConfigured:
		return "not_configured"
	default:
		return fmt.Sprintf("Status(%d)", int(s))
	}
}

// MarshalText writes the status as its word.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Reason is why a check failed.
type Reason int

// Reasons. The zero value is none (the check passed or did not run).
const (
	ReasonNone Reason = iota
	ReasonRefused
	ReasonUnreachable // no such host, no route, TLS failure
	ReasonTimeout
	ReasonUnauthorized // 401 or 403: the key is missing or refused
	ReasonNoSuchModel
	ReasonNoAudioEndpoint // 404 on /audio/…: a chat-only server
	ReasonNoChatEndpoint  // 404 on /chat/completions: usually a base URL without /v1
	ReasonHTTPError       // any other error status
	ReasonBadReply        // a 200 whose body is not what the endpoint should answer
	ReasonTooLarge        // the reply passed the stage's size cap (internal/httpbound)
)

func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return ""
	case ReasonRefused:
		return "refused"
	case ReasonUnreachable:
		return "unreachable"
	case ReasonTimeout:
		return "timeout"
	case ReasonUnauthorized:
		return "unauthorized"
	case ReasonNoSuchModel:
		return "no_such_model"
	case ReasonNoAudioEndpoint:
		return "no_audio_endpoint"
	case ReasonNoChatEndpoint:
		return "no_chat_endpoint"
	case ReasonHTTPError:
		return "http_error"
	case ReasonBadReply:
		return "bad_reply"
	case ReasonTooLarge:
		return "too_large"
	default:
		return fmt.Sprintf("Reason(%d)", int(r))
	}
}

// MarshalText writes the reason as its word.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

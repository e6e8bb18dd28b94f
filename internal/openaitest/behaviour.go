package openaitest

import (
	"fmt"
	"net/http"
	"time"
)

// Kind is what a Behaviour does with a request.
type Kind int

// Behaviour kinds.
const (
	KindToolCall   Kind = iota + 1 // chat: one tool call
	KindContent                    // chat: plain assistant content, no tool call
	KindStatus                     // any endpoint: an HTTP error with OpenAI's error body
	KindHang                       // any endpoint: no response until the client gives up or Close
	KindDisconnect                 // any endpoint: the connection is closed with no response
	KindTranscript                 // transcriptions: a scripted transcript
	KindSpeech                     // speech: synthesise the input with espeak-ng
)

func (k Kind) String() string {
	switch k {
	case KindToolCall:
		return "tool_call"
	case KindContent:
		return "content"
	case KindStatus:
		return "status"
	case KindHang:
		return "hang"
	case KindDisconnect:
		return "disconnect"
	case KindTranscript:
		return "transcript"
	case KindSpeech:
		return "speech"
	default:
		return fmt.Sprintf("kind(%d)", int(k))
	}
}

// DefaultFunctionName is the tool name a ToolCall uses when no FunctionName option is given:
// when the request forces a function through tool_choice, that name; otherwise this one.
const DefaultFunctionName = "report_observation"

// Behaviour is one scripted response. Build it with ToolCall, Content, Status, RateLimited,
// Hang, Disconnect, Transcribed or Synthesised, refined with ReplyOptions.
type Behaviour struct {
	Kind Kind

	// Arguments is the raw tool-call arguments string, sent verbatim (it need not be JSON).
	Arguments    string
	FunctionName string // empty: the forced tool_choice name, else DefaultFunctionName
	// Content is assistant text: the whole reply for KindContent, text before the tool call for
	// KindToolCall.
	Content string

	StatusCode int
	ErrType    string
	ErrCode    string
	ErrMessage string
	RetryAfter time.Duration // sent as Retry-After (whole seconds, rounded up) and retry-after-ms

	Transcript Transcript

	Delay      time.Duration // before the first byte
	ChunkBytes int           // streamed piece size; 0 means the server default
	ChunkDelay time.Duration // pause between streamed pieces
	StallAfter int           // >0: after this many pieces, stall until the client gives up
	CutAfter   int           // >0: after this many pieces, drop the connection
	FailAfter  int           // >0: after this many pieces, send an error event and end the stream

	// Tokens, when set, is the usage a chat reply reports instead of the estimate (TokenUsage).
	Tokens *[2]int
	// UsageJSON, when set, is the usage object sent verbatim (RawUsage).
	UsageJSON string

	// Dialect shapes a chat reply as another server does (dialect.go); zero: OpenAI's.
	Dialect Dialect
}

// ReplyOption refines a Behaviour.
type ReplyOption func(*Behaviour)

// defaultChunkBytes keeps default streams to several chunks even for short arguments.
const defaultChunkBytes = 24

// ToolCall answers with one tool call whose arguments string is args, verbatim. Invalid JSON is
// sent as is, which is how a model's malformed call looks on the wire.
func ToolCall(args string, opts ...ReplyOption) Behaviour {
	return build(Behaviour{Kind: KindToolCall, Arguments: args}, opts)
}

// Content answers with plain assistant text and no tool call (finish_reason "stop").
func Content(text string, opts ...ReplyOption) Behaviour {
	return build(Behaviour{Kind: KindContent, Content: text}, opts)
}

// Status answers with an HTTP error and OpenAI's error body. Type and message default to what
// OpenAI sends for the code.
func Status(code int, opts ...ReplyOption) Behaviour {
	b := Behaviour{Kind: KindStatus, StatusCode: code, ErrType: errorType(code), ErrMessage: errorMessage(code)}
	if code == http.StatusTooManyRequests {
		b.ErrCode = "rate_limit_exceeded"
	}
	return build(b, opts)
}

// RateLimited is Status(429) with a Retry-After header.
func RateLimited(retryAfter time.Duration, opts ...ReplyOption) Behaviour {
	return Status(http.StatusTooManyRequests, append([]ReplyOption{RetryAfter(retryAfter)}, opts...)...)
}

// Hang sends nothing until the client gives up or the server closes.
func Hang() Behaviour { return Behaviour{Kind: KindHang} }

// Disconnect closes the connection without a response: a transport error for the client.
func Disconnect(opts ...ReplyOption) Behaviour {
	return build(Behaviour{Kind: KindDisconnect}, opts)
}

// Transcribed answers a transcription request with tr.
func Transcribed(tr Transcript, opts ...ReplyOption) Behaviour {
	return build(Behaviour{Kind: KindTranscript, Transcript: tr}, opts)
}

// Synthesised answers a speech request with espeak-ng speech of its input (the speech default);
// enqueue it to stream with Streamed or Delay.
func Synthesised(opts ...ReplyOption) Behaviour {
	return build(Behaviour{Kind: KindSpeech}, opts)
}

// Streamed splits a streamed reply into pieces of about n bytes (never inside a UTF-8 rune) with
// delay between them. It applies when the client asked for a stream, and to speech audio.
func Streamed(n int, delay time.Duration) ReplyOption {
	return func(b *Behaviour) { b.ChunkBytes, b.ChunkDelay = n, delay }
}

// Delay waits d before the first byte of the response.
func Delay(d time.Duration) ReplyOption { return func(b *Behaviour) { b.Delay = d } }

// StallAfter makes a stream stop after n pieces and hang until the client gives up.
func StallAfter(n int) ReplyOption { return func(b *Behaviour) { b.StallAfter = n } }

// CutAfter makes a stream drop the connection after n pieces.
func CutAfter(n int) ReplyOption { return func(b *Behaviour) { b.CutAfter = n } }

// FailAfter makes a stream send an error event after n pieces and end, as OpenAI does when a
// reply fails server-side after it started. The event carries the ErrorBody (default: a
// server_error).
func FailAfter(n int) ReplyOption { return func(b *Behaviour) { b.FailAfter = n } }

// TokenUsage makes a chat reply report these prompt and completion tokens (wherever its dialect
// puts usage, if anywhere), so a test knows the exact sums an exam should record.
func TokenUsage(prompt, completion int) ReplyOption {
	return func(b *Behaviour) { b.Tokens = &[2]int{prompt, completion} }
}

// RawUsage makes a chat reply report this usage object verbatim (it need not be valid): how a
// server that gets its figures wrong looks on the wire.
func RawUsage(obj string) ReplyOption { return func(b *Behaviour) { b.UsageJSON = obj } }

// FunctionName names the function in a ToolCall.
func FunctionName(name string) ReplyOption { return func(b *Behaviour) { b.FunctionName = name } }

// WithText adds assistant text before a tool call.
func WithText(text string) ReplyOption { return func(b *Behaviour) { b.Content = text } }

// RetryAfter sets the Retry-After of an error response.
func RetryAfter(d time.Duration) ReplyOption { return func(b *Behaviour) { b.RetryAfter = d } }

// ErrorBody sets the error body's type, code and message.
func ErrorBody(typ, code, message string) ReplyOption {
	return func(b *Behaviour) { b.ErrType, b.ErrCode, b.ErrMessage = typ, code, message }
}

func build(b Behaviour, opts []ReplyOption) Behaviour {
	for _, o := range opts {
		o(&b)
	}
	return b
}

func errorType(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return "requests"
	case code >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func errorMessage(code int) string {
	switch code {
	case http.StatusTooManyRequests:
		return "Rate limit reached for requests. Please try again later."
	case http.StatusInternalServerError:
		return "The server had an error while processing your request. Sorry about that!"
	case http.StatusServiceUnavailable:
		return "The engine is currently overloaded, please try again later."
	case http.StatusBadRequest:
		return "Invalid request."
	default:
		return http.StatusText(code)
	}
}

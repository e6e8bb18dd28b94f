package openaitest

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
)

// The response shapes below are written from OpenAI's API reference, independently of the
// go-openai types, so a disagreement between the two shows up as a failing test.

type wireError struct {
	Error wireErrorBody `json:"error"`
}

type wireErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// raw, when set, is sent instead (RawUsage): a server's usage as it got it wrong.
	raw json.RawMessage
}

// MarshalJSON sends raw when set, else the counts.
func (u wireUsage) MarshalJSON() ([]byte, error) {
	if u.raw != nil {
		return u.raw, nil
	}
	type plain wireUsage
	return json.Marshal(plain(u))
}

type wireCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"` // chat.completion
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []wireChoice `json:"choices"`
	Usage             *wireUsage   `json:"usage,omitempty"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type wireChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	Logprobs     any         `json:"logprobs"`
	FinishReason *string     `json:"finish_reason"`
}

type wireMessage struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	Refusal   *string        `json:"refusal"`
	// Reasoning fields of servers that return the model's thinking (Dialect.ReasoningField).
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	Reasoning        *string `json:"reasoning,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireChunk struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"` // chat.completion.chunk
	Created           int64             `json:"created"`
	Model             string            `json:"model"`
	SystemFingerprint string            `json:"system_fingerprint"`
	Choices           []wireChunkChoice `json:"choices"`
	Usage             *wireUsage        `json:"usage,omitempty"`
}

type wireChunkChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	Logprobs     any       `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role      string              `json:"role,omitempty"`
	Content   *string             `json:"content,omitempty"`
	ToolCalls []wireDeltaToolCall `json:"tool_calls,omitempty"`
	// Reasoning fields of servers that stream the model's thinking (Dialect.ReasoningField).
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	Reasoning        *string `json:"reasoning,omitempty"`
}

type wireDeltaToolCall struct {
	Index    *int              `json:"index,omitempty"` // nil only for Dialect.NoToolIndex
	ID       string            `json:"id,omitempty"`
	Type     string            `json:"type,omitempty"`
	Function wireDeltaFunction `json:"function"`
}

type wireDeltaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// writeError writes OpenAI's error body. A positive retryAfter sets Retry-After in whole seconds
// (rounded up, as the header allows no fraction) and retry-after-ms exactly, as OpenAI does.
// badRequest answers a malformed request as the API does: 400 with an invalid_request_error.
// writeParamError is an error naming the request parameter at fault, as OpenAI's body does.
func writeParamError(w http.ResponseWriter, code int, typ, param, message string) {
	writeJSON(w, code, wireError{Error: wireErrorBody{Message: message, Type: typ, Param: &param}})
}

func badRequest(w http.ResponseWriter, message string) {
	writeError(w, http.StatusBadRequest, "invalid_request_error", "", message, 0)
}

// decodeJSON decodes the request's JSON body into v; a body that does not parse is answered
// with the API's message and decodeJSON reports false.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		badRequest(w, "We could not parse the JSON body of your request. ("+err.Error()+")")
		return false
	}
	return true
}

func writeError(w http.ResponseWriter, code int, typ, errCode, message string, retryAfter time.Duration) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
		w.Header().Set("retry-after-ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
	}
	body := wireError{Error: wireErrorBody{Message: message, Type: typ}}
	if errCode != "" {
		body.Error.Code = &errCode
	}
	writeJSON(w, code, body)
}

package openaitest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Request is one recorded request. Exactly one of Chat, Transcription and Speech is set for a
// request to those endpoints that could be decoded.
type Request struct {
	Time   time.Time
	Method string
	Path   string
	Header http.Header // without Authorization
	Body   []byte      // raw body as received (multipart included)

	Chat          *ChatRequest
	Transcription *TranscriptionRequest
	Speech        *SpeechRequest

	Behaviour Kind // what the server answered with; 0 when the request was rejected before
}

// ChatRequest is a decoded chat completions request, in OpenAI's field names.
type ChatRequest struct {
	Model               string         `json:"model"`
	Messages            []ChatMessage  `json:"messages"`
	Tools               []Tool         `json:"tools,omitempty"`
	ToolChoice          any            `json:"tool_choice,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	ParallelToolCalls   *bool          `json:"parallel_tool_calls,omitempty"`
}

// StreamOptions is the stream_options object.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// ChatMessage is one message. Content arrays of parts are flattened to their text.
type ChatMessage struct {
	Role       string            `json:"role"`
	Content    string            `json:"-"`
	Name       string            `json:"name,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	ToolCalls  []MessageToolCall `json:"tool_calls,omitempty"`
}

// UnmarshalJSON accepts content as a string, null, or an array of {type, text} parts.
func (m *ChatMessage) UnmarshalJSON(data []byte) error {
	type plain ChatMessage
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = ChatMessage(raw.plain)
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] == '"' {
		return json.Unmarshal(raw.Content, &m.Content)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	m.Content = b.String()
	return nil
}

// Tool is one tool definition.
type Tool struct {
	Type     string       `json:"type"`
	Function FunctionSpec `json:"function"`
}

// FunctionSpec is a function tool's definition; Parameters is its JSON Schema, raw.
type FunctionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

// MessageToolCall is a tool call in an assistant message.
type MessageToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ForcedFunction returns the function name tool_choice forces, or "" when it forces none
// ("auto", "none", "required" or absent).
func (r *ChatRequest) ForcedFunction() string {
	m, ok := r.ToolChoice.(map[string]any)
	if !ok {
		return ""
	}
	fn, _ := m["function"].(map[string]any)
	name, _ := fn["name"].(string)
	return name
}

// TranscriptionRequest is a decoded multipart transcription request.
type TranscriptionRequest struct {
	Model          string
	Language       string
	Prompt         string
	ResponseFormat string // as sent; empty means json
	Temperature    string
	FileName       string
	File           []byte
	Fields         map[string][]string // every non-file field
}

// SpeechRequest is a decoded speech request.
type SpeechRequest struct {
	Model          string  `json:"model"`
	Input          string  `json:"input"`
	Voice          string  `json:"voice"`
	Instructions   string  `json:"instructions,omitempty"`
	ResponseFormat string  `json:"response_format,omitempty"`
	Speed          float64 `json:"speed,omitempty"`
}

// Transcript is a scripted transcription result. Zero Duration is taken from the uploaded WAV
// when it can be read; no Segments means one segment covering the whole text.
type Transcript struct {
	Text     string
	Language string // as OpenAI reports it in verbose_json ("english"); empty: from the request
	Duration float64
	Segments []Segment
}

// Segment is one verbose_json segment.
type Segment struct {
	Start        float64
	End          float64
	Text         string
	AvgLogprob   float64
	NoSpeechProb float64
}

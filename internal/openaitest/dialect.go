package openaitest

import "encoding/json"

// Dialect is how a server other than OpenAI's shapes a chat reply on the wire. Each field is
// one documented difference; the zero Dialect is OpenAI's own behaviour. The examiner is tested
// against every dialect in Dialects (runtime/llm's dialect matrix).
type Dialect struct {
	// Name names the dialect in test names and docs.
	Name string
	// Imitates says which server behaves so, from that server's own documentation.
	Imitates string

	// WholeToolCall streams a tool call as one delta carrying its id, name and all its
	// arguments, instead of a header then argument pieces.
	WholeToolCall bool
	// NoToolIndex leaves the index out of tool-call deltas.
	NoToolIndex bool
	// CallAsText writes the tool call as assistant text instead of a tool call, as a model does
	// when the server does not enforce tool_choice and the chat template has no tool parser:
	// TextCallWrapped is {"name": …, "arguments": {…}}, TextCallBare the arguments object,
	// TextCallTagged <tool_call>{"name": …, "arguments": {…}}</tool_call>, TextCallFenced the
	// wrapped form in a ```json fence.
	CallAsText TextCall
	// Finish replaces the finish_reason of a tool call ("stop", "function_call");
	// FinishNone sends none at all (the stream ends with no finish chunk, a completion has null).
	Finish string
	// Usage is where token usage travels.
	Usage UsagePlacement
	// ReasoningField sends Reasoning in this delta/message field ("reasoning_content" or
	// "reasoning") before any content; ThinkTags puts it in the content inside <think></think>.
	ReasoningField string
	ThinkTags      bool
	Reasoning      string
	// NoDone ends the stream without data: [DONE] (the connection just closes).
	NoDone bool
	// AutoToolChoiceOnly answers HTTP 400 (param tool_choice) to a request whose tool_choice is
	// anything but "auto" or absent: a named function, "required" or "none". The reply stays
	// queued for the client's next request.
	AutoToolChoiceOnly bool
}

// autoOnlyMessage is the 400's message, in the words the imitated API uses.
const autoOnlyMessage = `only "auto" is supported for tool_choice. "none", "required", and named function choices are not currently supported`

// rejectsChoice returns the 400's message when the dialect refuses req's tool_choice, else "".
func (d Dialect) rejectsChoice(req *ChatRequest) string {
	if !d.AutoToolChoiceOnly || req.ToolChoice == nil || req.ToolChoice == "auto" {
		return ""
	}
	return autoOnlyMessage
}

// TextCall is how a tool call written as text looks.
type TextCall int

// Text call shapes.
const (
	TextCallNone TextCall = iota
	TextCallWrapped
	TextCallBare
	TextCallTagged
	TextCallFenced
)

// FinishNone is Dialect.Finish for no finish_reason at all.
const FinishNone = "-"

// UsagePlacement is where a streamed reply's usage goes.
type UsagePlacement int

// Usage placements.
const (
	// UsageOpenAI: a last chunk with no choices, only when stream_options.include_usage asks;
	// completions always carry it.
	UsageOpenAI UsagePlacement = iota
	// UsageInFinishChunk: in the chunk with the finish_reason, asked or not.
	UsageInFinishChunk
	// UsageNever: never sent, not even in a completion.
	UsageNever
)

// As makes the reply speak dialect d.
func As(d Dialect) ReplyOption { return func(b *Behaviour) { b.Dialect = d } }

// Dialects are the documented behaviours of the servers examtui is pointed at, each imitated
// on its own. The sources are each server's public documentation.
var Dialects = []Dialect{
	{Name: "openai", Imitates: "OpenAI: id and name in a header delta, arguments in pieces, finish_reason tool_calls, usage in a last chunk when asked"},
	{Name: "whole-call", WholeToolCall: true, Imitates: "Ollama /v1: a tool call arrives whole in one delta (id, name, all arguments), then a finish chunk"},
	{Name: "stop-with-call", WholeToolCall: true, Finish: "stop", Imitates: "Ollama /v1 before streamed tool calls: the call whole, finish_reason stop"},
	{Name: "function-call-finish", Finish: "function_call", Imitates: "servers following the legacy functions API: finish_reason function_call"},
	{Name: "no-finish", Finish: FinishNone, NoDone: true, Imitates: "minimal proxies: no finish_reason and no [DONE], the stream just ends"},
	{Name: "no-index", NoToolIndex: true, Imitates: "servers that omit the tool-call delta index (early llama-cpp-python, some gateways)"},
	{Name: "usage-in-finish", Usage: UsageInFinishChunk, Imitates: "llama.cpp server: usage (with its timings) in the final chunk, asked or not"},
	{Name: "no-usage", Usage: UsageNever, Imitates: "servers that never report usage (older vLLM and Ollama streams without stream_options)"},
	{Name: "reasoning-content", ReasoningField: "reasoning_content", Reasoning: "The candidate proposes a hybrid buffet; that is analysis.", Imitates: "llama.cpp server (--reasoning-format deepseek) and vLLM's reasoning parsers: reasoning_content deltas before the answer"},
	{Name: "reasoning", ReasoningField: "reasoning", Reasoning: "Hybrid buffet: an option with trade-offs.", Imitates: "Ollama /v1 and newer vLLM: thinking in a reasoning field before the answer"},
	{Name: "think-tags", ThinkTags: true, Reasoning: "The candidate weighs options.", Imitates: "llama.cpp server with --reasoning-format none: the thinking inline in content inside <think></think>"},
	{Name: "text-call-wrapped", CallAsText: TextCallWrapped, Imitates: "llama.cpp server without --jinja, Ollama on a model with no tool template: tool_choice is ignored and the model writes {\"name\", \"arguments\"} as text (Llama 3.1's JSON tool format)"},
	{Name: "text-call-bare", CallAsText: TextCallBare, Imitates: "a model asked for JSON that ignores the unenforced tool_choice and writes the arguments object alone"},
	{Name: "text-call-tagged", CallAsText: TextCallTagged, Imitates: "Hermes/Qwen templates on a server with no tool parser (vLLM without --enable-auto-tool-choice): <tool_call>{…}</tool_call> in content"},
	{Name: "text-call-fenced", CallAsText: TextCallFenced, Imitates: "chat models that wrap JSON in a ```json fence when tool_choice is ignored"},
	{Name: "llama-api-auto-only", AutoToolChoiceOnly: true, Imitates: "Meta's Llama API (OpenAI-compatible endpoint): a named function or \"required\" tool_choice is refused with HTTP 400 `" + autoOnlyMessage + "` (the API's error as quoted in justrach/codegraff#751); \"auto\" is served"},
}

// asText turns a tool call into the text a model writes when the call is not enforced
// (CallAsText); other behaviours are returned unchanged.
func (d Dialect) asText(b Behaviour, name string) Behaviour {
	if b.Kind != KindToolCall || d.CallAsText == TextCallNone {
		return b
	}
	wrapped := `{"name": ` + quote(name) + `, "arguments": ` + b.Arguments + `}`
	var text string
	switch d.CallAsText {
	case TextCallWrapped:
		text = wrapped
	case TextCallBare:
		text = b.Arguments
	case TextCallTagged:
		text = "<tool_call>\n" + wrapped + "\n</tool_call>"
	case TextCallFenced:
		text = "Here is my observation.\n```json\n" + wrapped + "\n```"
	}
	b.Kind, b.Arguments = KindContent, ""
	b.Content += text
	return b
}

// content is the reply's content with the thinking inline when ThinkTags asks for it.
func (d Dialect) content(c string) string {
	if d.ThinkTags && d.Reasoning != "" {
		return "<think>\n" + d.Reasoning + "\n</think>\n\n" + c
	}
	return c
}

// setReasoning puts text in the dialect's reasoning field.
func (d Dialect) setReasoning(reasoningContent, reasoning **string, text *string) {
	if d.ReasoningField == "reasoning" {
		*reasoning = text
		return
	}
	*reasoningContent = text
}

// finish is the finish_reason the dialect sends for a reply of kind k (nil: none).
func (d Dialect) finish(k Kind) *string {
	f := "stop"
	if k == KindToolCall {
		f = "tool_calls"
		if d.Finish != "" {
			f = d.Finish
		}
	}
	if d.Finish == FinishNone {
		return nil
	}
	return &f
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

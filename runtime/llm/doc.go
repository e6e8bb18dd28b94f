// Package llm is the examiner backed by an OpenAI-compatible chat completions endpoint (OpenAI,
// or a local llama.cpp, Ollama or vLLM server) through github.com/sashabaranov/go-openai.
//
// Each turn is one chat completion with the node's single tool, report_observation, forced
// through tool_choice. The examiner returns the tool call's arguments raw: parsing and validation
// are the controller's, so a malformed reply is handled in one place. With streaming on, the
// arguments accumulated so far are handed to ExaminerRequest.OnArguments as they arrive.
//
// Every failure ends in a wrapped, named error (errors.go) within the turn deadline: 429, 5xx,
// timeouts and transport errors are retried with exponential backoff and jitter (honouring
// Retry-After), other 4xx never. A stream that breaks after partial arguments were handed on is
// not retried, because the controller may already have acted on them. The API key never appears
// in logs or errors.
package llm

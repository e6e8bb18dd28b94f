package llm

import (
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/runtime"
)

// buildRequest turns one turn into a chat completion request and returns the function name
// whose call is the answer.
func (e *Examiner) buildRequest(req *runtime.ExaminerRequest) (openai.ChatCompletionRequest, string, error) {
	if req == nil || req.Node == nil {
		return openai.ChatCompletionRequest{}, "", fmt.Errorf("%w: no node", ErrInvalidRequest)
	}
	fns := req.Node.LLM.Functions
	if len(fns) != 1 || fns[0].Name == "" {
		return openai.ChatCompletionRequest{}, "", fmt.Errorf("%w: node %s has %d functions, want exactly one named function",
			ErrInvalidRequest, req.Node.NodeID, len(fns))
	}
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, "", fmt.Errorf("%w: node %s: no messages", ErrInvalidRequest, req.Node.NodeID)
	}
	msgs := make([]openai.ChatCompletionMessage, 0, len(req.Messages))
	for i, m := range req.Messages {
		role := m.Role
		switch role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleUser, openai.ChatMessageRoleAssistant:
		case openai.ChatMessageRoleDeveloper:
			if !e.cfg.developerRole {
				role = openai.ChatMessageRoleSystem
			}
		default:
			return openai.ChatCompletionRequest{}, "", fmt.Errorf("%w: message %d has role %q", ErrInvalidRequest, i, m.Role)
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: role, Content: m.Content})
	}
	fn := fns[0]
	params := any(fn.Parameters)
	if fn.Parameters == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	out := openai.ChatCompletionRequest{
		Model:    e.cfg.model,
		Messages: msgs,
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: fn.Name, Description: fn.Description, Parameters: params,
		}}},
	}
	out.ToolChoice = toolChoiceValue(e.toolChoice(), fn.Name)
	if !ReasoningModel(e.cfg.model) {
		out.Temperature = e.cfg.temperature
	}
	if e.cfg.streaming {
		out.Stream = true
		out.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return out, fn.Name, nil
}

// ReasoningModel reports models that reject a sampling temperature and max_tokens (go-openai
// refuses such a request before sending it).
func ReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// toolChoiceValue is tc on the wire, naming fn when it forces the function.
func toolChoiceValue(tc ToolChoice, fn string) any {
	switch tc {
	case ToolChoiceRequired:
		return "required"
	case ToolChoiceAuto:
		return "auto"
	}
	return openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: fn}}
}

package llm

import (
	"errors"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// toolChoice is how requests ask for the tool now: the configured form, or the weaker one a
// server's refusal moved the examiner to (downgradeToolChoice), for the rest of its session.
func (e *Examiner) toolChoice() ToolChoice { return ToolChoice(e.choice.Load()) }

// downgradeToolChoice moves from the form the server refused to the next weaker one (a named
// function → "required" → "auto") and reports the new form; false when "auto" was refused too,
// or another turn already moved past the refused form (then the caller retries with that one).
func (e *Examiner) downgradeToolChoice(refused ToolChoice) (ToolChoice, bool) {
	if refused >= ToolChoiceAuto {
		return refused, false
	}
	next := refused + 1
	if !e.choice.CompareAndSwap(int32(refused), int32(next)) {
		cur := e.toolChoice()
		return cur, cur > refused
	}
	return next, true
}

// refusesToolChoice reports a 400 whose error is about tool_choice: the parameter it names, or
// its message. Servers that support only some forms answer so (the llama-api-auto-only dialect);
// any other 400 is the request's own fault and is not retried.
func refusesToolChoice(err error) bool {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var text string
	switch {
	case errors.As(err, &apiErr):
		if apiErr.HTTPStatusCode != 400 {
			return false
		}
		if apiErr.Param != nil && *apiErr.Param == "tool_choice" {
			return true
		}
		text = apiErr.Message
	case errors.As(err, &reqErr):
		if reqErr.HTTPStatusCode != 400 {
			return false
		}
		text = string(reqErr.Body)
	default:
		return false
	}
	text = strings.ToLower(text)
	return strings.Contains(text, "tool_choice") || strings.Contains(text, "tool choice")
}

// toolChoiceOf reads back the form of a request's tool_choice.
func toolChoiceOf(v any) ToolChoice {
	switch v {
	case "required":
		return ToolChoiceRequired
	case "auto":
		return ToolChoiceAuto
	}
	return ToolChoiceFunction
}

// ReportsUsage implements runtime.UsageReporter: this examiner calls a paid model, so a call of
// its that failed or was cancelled counts as a failed request.
func (e *Examiner) ReportsUsage() bool { return true }

package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/runtime"
)

var _ runtime.Summariser = (*Examiner)(nil)

// summaryInstruction is the summary call's system message. The summary is the examiner's own
// note: it is never spoken, so it must not judge (the rubric stays the controller's).
const summaryInstruction = "You keep notes for an oral examiner. Summarise the conversation below for the " +
	"examiner's own use: what was asked and what the candidate said, in order, keeping the candidate's " +
	"concrete points (figures, names, proposals) and leaving out pleasantries. Do not judge or grade " +
	"the answers and do not address the candidate. Reply with the summary only, as plain prose, in at " +
	"most %d tokens."

// Summarise asks the model for a summary of older turns (runtime.Summariser): one call, no
// tools, no stream, no retry, bounded by max_completion_tokens (the spec's context.summaryTokens), the
// per-request timeout and the reply size cap. An error wraps ErrSummary and says why.
func (e *Examiner) Summarise(ctx context.Context, req *runtime.SummaryRequest) (*runtime.SummaryReply, error) {
	if req == nil || len(req.Messages) == 0 || req.MaxTokens <= 0 {
		return nil, fmt.Errorf("%w: %w: nothing to summarise", ErrSummary, ErrInvalidRequest)
	}
	var b strings.Builder
	if req.Previous != "" {
		b.WriteString("Summary so far:\n" + req.Previous + "\n\n")
	}
	b.WriteString("Conversation to add:\n")
	for _, m := range req.Messages {
		who := "Note"
		switch m.Role {
		case "user":
			who = "Candidate"
		case "assistant":
			who = "Examiner"
		}
		b.WriteString(who + ": " + m.Content + "\n")
	}
	creq := openai.ChatCompletionRequest{
		Model: e.cfg.model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: fmt.Sprintf(summaryInstruction, req.MaxTokens)},
			{Role: openai.ChatMessageRoleUser, Content: b.String()},
		},
		// max_completion_tokens (max_tokens is deprecated, and refused by reasoning models); a
		// server that ignores it is still held to the budget by the controller's cut.
		MaxCompletionTokens: req.MaxTokens,
	}
	if !ReasoningModel(e.cfg.model) {
		creq.Temperature = e.cfg.temperature
	}
	meta := &respMeta{}
	callCtx, cancel := context.WithTimeout(ctx, e.cfg.requestTimeout)
	defer cancel()
	resp, err := e.client.CreateChatCompletion(withCap(withMeta(callCtx, meta), e.cfg.maxReplyBytes), creq)
	if err != nil {
		if errors.Is(err, ErrTooLarge) || meta.tooLarge {
			return nil, fmt.Errorf("%w: %w (over %d bytes)", ErrSummary, ErrTooLarge, e.cfg.maxReplyBytes)
		}
		classified, _ := e.classify(err, meta, callCtx.Err() != nil, ctx)
		if classified == nil {
			classified = fmt.Errorf("%w: %w", ErrCanceled, context.Cause(ctx))
		}
		return nil, fmt.Errorf("%w: %w", ErrSummary, classified)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("%w: %w", ErrSummary, ErrEmpty)
	}
	var u *openai.Usage
	if resp.Usage.PromptTokens != 0 || resp.Usage.CompletionTokens != 0 {
		u = &resp.Usage
	}
	us := e.usage(u)
	us.Invalid = meta.usageInvalid
	return &runtime.SummaryReply{Text: resp.Choices[0].Message.Content, Usage: us}, nil
}

package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/runtime"
)

// complete runs one non-streaming attempt.
func (e *Examiner) complete(ctx context.Context, creq openai.ChatCompletionRequest, fn string) (*runtime.ExaminerReply, error) {
	resp, err := e.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, ErrEmpty
	}
	msg := resp.Choices[0].Message
	acc := newAccumulator()
	for i, tc := range msg.ToolCalls {
		if tc.Index == nil {
			tc.Index = &i
		}
		acc.add(tc)
	}
	acc.content = []byte(msg.Content)
	e.cfg.logger.Debug("llm usage", "prompt_tokens", resp.Usage.PromptTokens, "completion_tokens", resp.Usage.CompletionTokens)
	r := e.reply(acc, fn, resp.Choices[0].FinishReason)
	// go-openai decodes an absent usage as zeros; no real request has zero prompt tokens.
	var u *openai.Usage
	if resp.Usage.PromptTokens != 0 || resp.Usage.CompletionTokens != 0 {
		u = &resp.Usage
	}
	r.Usage = e.usage(u)
	return r, nil
}

// stream runs one streaming attempt. partial reports that onArgs was called before a failure.
func (e *Examiner) stream(ctx context.Context, creq openai.ChatCompletionRequest, fn string,
	onArgs func([]byte), start time.Time) (_ *runtime.ExaminerReply, partial bool, _ error) {
	ttCtx, watch, stopWatch := watchFirstToken(ctx, e.cfg.firstToken)
	defer stopWatch()
	// firstTokenErr names a hang or a stall: the watch cancelled the attempt.
	firstTokenErr := func(err error) error {
		if cause := context.Cause(ttCtx); (errors.Is(cause, ErrFirstToken) || errors.Is(cause, ErrStalled)) && ctx.Err() == nil {
			return cause
		}
		return err
	}
	s, err := e.client.CreateChatCompletionStream(ttCtx, creq)
	if err != nil {
		return nil, false, firstTokenErr(err)
	}
	defer s.Close()
	acc := newAccumulator()
	var first time.Duration
	var finish openai.FinishReason
	var usage *openai.Usage
	delivered, chunks := 0, 0
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, delivered > 0, firstTokenErr(err)
		}
		watch.seen()
		chunks++
		if chunk.Usage != nil {
			usage = chunk.Usage
			e.cfg.logger.Debug("llm usage", "prompt_tokens", chunk.Usage.PromptTokens, "completion_tokens", chunk.Usage.CompletionTokens)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
			got := ch.Delta.Content != ""
			acc.content = append(acc.content, ch.Delta.Content...)
			for _, tc := range ch.Delta.ToolCalls {
				acc.add(tc)
				got = got || tc.Function.Arguments != ""
			}
			if got && first == 0 {
				first = time.Since(start)
			}
			if onArgs != nil {
				if c := acc.pick(fn); c != nil && len(c.args) > delivered {
					delivered = len(c.args)
					onArgs(bytes.Clone(c.args))
				}
			}
		}
	}
	if chunks == 0 {
		return nil, false, ErrEmpty
	}
	if finish == "" {
		e.cfg.logger.Warn("llm stream ended without finish_reason", "chunks", chunks)
	}
	r := e.reply(acc, fn, finish)
	r.FirstToken = first
	r.Usage = e.usage(usage)
	return r, false, nil
}

// usage is the turn's usage from what the server sent (nil: it sent none, so the counts stay
// unknown rather than 0).
func (e *Examiner) usage(u *openai.Usage) *runtime.TurnUsage {
	out := &runtime.TurnUsage{Model: e.cfg.model}
	if u != nil {
		p, c := int64(u.PromptTokens), int64(u.CompletionTokens)
		out.PromptTokens, out.CompletionTokens = &p, &c
	}
	return out
}

// reply builds the raw reply from what was accumulated.
func (e *Examiner) reply(acc *accumulator, fn string, finish openai.FinishReason) *runtime.ExaminerReply {
	r := &runtime.ExaminerReply{Content: string(acc.content)}
	if c := acc.pick(fn); c != nil {
		r.Arguments = append(json.RawMessage{}, c.args...)
	} else if len(acc.calls) > 0 {
		e.cfg.logger.Warn("llm called other functions only", "want", fn, "got", fmt.Sprint(acc.names()))
	} else if args := callFromText(r.Content, fn); args != nil {
		// tool_choice was not enforced and the model wrote its call as text (textcall.go).
		e.cfg.logger.Info("llm call taken from the reply's text", "function", fn, "bytes", len(args))
		r.Arguments = args
	}
	if finish == openai.FinishReasonLength {
		e.cfg.logger.Warn("llm reply cut at the token limit", "finish_reason", string(finish))
	}
	return r
}

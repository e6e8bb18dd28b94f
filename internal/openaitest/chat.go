package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

const endpointChat = "/v1/chat/completions"

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if !decodeJSON(w, r, &req) {
		return
	}
	if msg := validateChat(&req); msg != "" {
		badRequest(w, msg)
		return
	}
	if msg := s.refusedChoice(&req); msg != "" {
		s.update(r, func(rec *Request) { rec.Chat = &req; rec.Behaviour = KindStatus })
		writeParamError(w, http.StatusBadRequest, "invalid_request_error", "tool_choice", msg)
		return
	}
	var b Behaviour
	if s.cfg.plainChat != nil && len(req.Tools) == 0 {
		b = s.cfg.plainChat(&req)
	} else {
		b = s.next(&s.chatQ, func() Behaviour { return s.cfg.chatDefault(&req) })
	}
	s.update(r, func(rec *Request) { rec.Chat = &req; rec.Behaviour = b.Kind })
	if !s.ready(w, r, b, endpointChat, KindToolCall, KindContent) {
		return
	}
	name := b.FunctionName
	if name == "" {
		name = req.ForcedFunction()
	}
	if name == "" {
		name = DefaultFunctionName
	}
	b = b.Dialect.asText(b, name)
	reply := chatReply{
		id:      s.newID("chatcmpl-"),
		callID:  s.newID("call_"),
		created: time.Now().Unix(),
		model:   req.Model,
		name:    name,
		usage:   usageFor(&req, b),
	}
	if req.Stream {
		s.streamChat(w, r, &req, b, reply)
		return
	}
	writeJSON(w, http.StatusOK, completion(b, reply))
}

// validateChat returns OpenAI's message for a request it would reject, or "".
func validateChat(req *ChatRequest) string {
	if req.Model == "" {
		return "you must provide a model parameter"
	}
	if len(req.Messages) == 0 {
		return "[] is too short - 'messages'"
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'. (messages[%d].role)", m.Role, i)
		}
	}
	for i, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return fmt.Sprintf("Missing required parameter: 'tools[%d].function.name'.", i)
		}
	}
	return ""
}

type chatReply struct {
	id, callID string
	created    int64
	model      string
	name       string
	usage      wireUsage
}

func completion(b Behaviour, rp chatReply) wireCompletion {
	d := b.Dialect
	msg := wireMessage{Role: "assistant"}
	if content := d.content(b.Content); content != "" {
		msg.Content = &content
	}
	if d.ReasoningField != "" {
		reasoning := d.Reasoning
		d.setReasoning(&msg.ReasoningContent, &msg.Reasoning, &reasoning)
	}
	if b.Kind == KindToolCall {
		msg.ToolCalls = []wireToolCall{{
			ID: rp.callID, Type: "function",
			Function: wireFunction{Name: rp.name, Arguments: b.Arguments},
		}}
	}
	c := wireCompletion{
		ID: rp.id, Object: "chat.completion", Created: rp.created, Model: rp.model,
		Choices:           []wireChoice{{Index: 0, Message: msg, FinishReason: d.finish(b.Kind)}},
		SystemFingerprint: "fp_openaitest",
	}
	if d.Usage != UsageNever {
		u := rp.usage
		c.Usage = &u
	}
	return c
}

// streamChat sends the reply as OpenAI does: a role chunk, content pieces, a tool-call header
// (id, type, name, empty arguments), argument pieces, a finish chunk, an optional usage chunk
// with no choices, then [DONE].
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, req *ChatRequest, b Behaviour, rp chatReply) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)

	chunk := func(d wireDelta, finish *string) wireChunk {
		c := wireChunk{
			ID: rp.id, Object: "chat.completion.chunk", Created: rp.created, Model: rp.model,
			SystemFingerprint: "fp_openaitest",
			Choices:           []wireChunkChoice{{Index: 0, Delta: d, FinishReason: finish}},
		}
		return c
	}
	d := b.Dialect
	var events []wireChunk
	empty := ""
	events = append(events, chunk(wireDelta{Role: "assistant", Content: &empty}, nil))
	size := b.ChunkBytes
	if size <= 0 {
		size = defaultChunkBytes
	}
	if d.ReasoningField != "" {
		for _, p := range SplitPieces(d.Reasoning, size) {
			var delta wireDelta
			d.setReasoning(&delta.ReasoningContent, &delta.Reasoning, &p)
			events = append(events, chunk(delta, nil))
		}
	}
	for _, p := range SplitPieces(d.content(b.Content), size) {
		events = append(events, chunk(wireDelta{Content: &p}, nil))
	}
	index := func() *int {
		if d.NoToolIndex {
			return nil
		}
		zero := 0
		return &zero
	}
	if b.Kind == KindToolCall {
		if d.WholeToolCall {
			events = append(events, chunk(wireDelta{ToolCalls: []wireDeltaToolCall{{
				Index: index(), ID: rp.callID, Type: "function", Function: wireDeltaFunction{Name: rp.name, Arguments: b.Arguments},
			}}}, nil))
		} else {
			events = append(events, chunk(wireDelta{ToolCalls: []wireDeltaToolCall{{
				Index: index(), ID: rp.callID, Type: "function", Function: wireDeltaFunction{Name: rp.name},
			}}}, nil))
			for _, p := range SplitPieces(b.Arguments, size) {
				events = append(events, chunk(wireDelta{ToolCalls: []wireDeltaToolCall{{
					Index: index(), Function: wireDeltaFunction{Arguments: p},
				}}}, nil))
			}
		}
	}
	if finish := d.finish(b.Kind); finish != nil {
		fc := chunk(wireDelta{}, finish)
		if d.Usage == UsageInFinishChunk {
			u := rp.usage
			fc.Usage = &u
		}
		events = append(events, fc)
	}
	if d.Usage == UsageOpenAI && req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		u := rp.usage
		events = append(events, wireChunk{
			ID: rp.id, Object: "chat.completion.chunk", Created: rp.created, Model: rp.model,
			SystemFingerprint: "fp_openaitest", Choices: []wireChunkChoice{}, Usage: &u,
		})
	}

	for i, ev := range events {
		if i > 0 && !s.wait(r, b.ChunkDelay) {
			return
		}
		data, err := json.Marshal(ev)
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		sent := i + 1
		if s.cutOrStall(w, r, b, sent) {
			return
		}
		if b.FailAfter > 0 && sent == b.FailAfter {
			writeErrorEvent(w, b)
			return
		}
	}
	if d.NoDone {
		return
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err != nil {
		return
	}
	if flusher != nil {
		flusher.Flush()
	}
}

// writeErrorEvent ends a stream with an error event in OpenAI's error shape.
// cutOrStall ends a stream after its sent-th piece where b asks for it: the connection dropped
// (CutAfter) or the response hung until the client gives up (StallAfter). It reports whether
// the stream ended.
func (s *Server) cutOrStall(w http.ResponseWriter, r *http.Request, b Behaviour, sent int) bool {
	switch {
	case b.CutAfter > 0 && sent == b.CutAfter:
		disconnect(w)
	case b.StallAfter > 0 && sent == b.StallAfter:
		s.hang(r)
	default:
		return false
	}
	return true
}

func writeErrorEvent(w http.ResponseWriter, b Behaviour) {
	body := wireError{Error: wireErrorBody{Message: b.ErrMessage, Type: b.ErrType}}
	if body.Error.Message == "" {
		body.Error.Message, body.Error.Type = errorMessage(http.StatusInternalServerError), "server_error"
	}
	if b.ErrCode != "" {
		body.Error.Code = &b.ErrCode
	}
	data, err := json.Marshal(body)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_, _ = fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// SplitPieces cuts s into pieces of about n bytes, never inside a UTF-8 rune (a JSON string
// cannot carry half a rune). An empty s gives no pieces.
func SplitPieces(s string, n int) []string {
	if n <= 0 {
		n = 1
	}
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// usageFor is the reply's TokenUsage, else an estimate at about four bytes a token.
func usageFor(req *ChatRequest, b Behaviour) wireUsage {
	if b.UsageJSON != "" {
		return wireUsage{raw: json.RawMessage(b.UsageJSON)}
	}
	if b.Tokens != nil {
		return wireUsage{PromptTokens: b.Tokens[0], CompletionTokens: b.Tokens[1], TotalTokens: b.Tokens[0] + b.Tokens[1]}
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += 4 + len(m.Content)/4
	}
	for _, t := range req.Tools {
		prompt += len(t.Function.Parameters) / 4
	}
	completion := 1 + (len(b.Content)+len(b.Arguments))/4
	return wireUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}

// refusedChoice is the 400's message when the reply queued next speaks a dialect that refuses
// the request's tool_choice (Dialect.AutoToolChoiceOnly); the reply stays queued.
func (s *Server) refusedChoice(req *ChatRequest) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.chatQ) == 0 {
		return ""
	}
	return s.chatQ[0].Dialect.rejectsChoice(req)
}

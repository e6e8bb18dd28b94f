package llm

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// A server that does not enforce tool_choice (llama.cpp without a tool-call template, Ollama
// on a model with no tool template, vLLM without a tool parser) passes the request on and the
// model often writes its call as text: {"name": …, "arguments": {…}} (Llama 3.1's JSON tool
// format), <tool_call>{…}</tool_call> (Hermes, Qwen), the same in a ```json fence, or the
// arguments object alone. The examiner takes such a reply as the call, so the exam goes on as
// if the server had enforced it: the controller still validates the arguments (one place for
// malformed replies), so a stray JSON object is at worst an invalid observation, which fails
// the turn exactly as a reply with no call would.
//
// Only a reply with no tool call at all is read this way, and only when the JSON is the whole
// reply (after any <think> block), the body of one <tool_call> tag or of one code fence: text
// that merely mentions JSON stays text. A wrapped call naming another function is not taken.

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	toolTag    = regexp.MustCompile(`(?s)^<tool_call>\s*(.*?)\s*</tool_call>$`)
	fence      = regexp.MustCompile("(?s)```(?:json|JSON)?\\s*\\n(.*?)\\n?```")
)

// callFromText returns the arguments of a call to fn written as text, or nil.
func callFromText(content, fn string) json.RawMessage {
	text := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	if text == "" {
		return nil
	}
	if m := toolTag.FindStringSubmatch(text); m != nil {
		text = m[1]
	} else if ms := fence.FindAllStringSubmatch(text, -1); len(ms) == 1 {
		text = strings.TrimSpace(ms[0][1])
	}
	raw := []byte(text)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil
	}
	nameRaw, named := obj["name"]
	if !named {
		return raw // the arguments object alone
	}
	var name string
	if err := json.Unmarshal(nameRaw, &name); err != nil || name != fn {
		return nil
	}
	for _, k := range []string{"arguments", "parameters"} {
		args := bytes.TrimSpace(obj[k])
		if len(args) == 0 {
			continue
		}
		if args[0] == '"' { // arguments as a JSON string, as on the wire
			var s string
			if json.Unmarshal(args, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") && json.Valid([]byte(s)) {
				return json.RawMessage(strings.TrimSpace(s))
			}
			return nil
		}
		if args[0] == '{' {
			return json.RawMessage(args)
		}
	}
	return nil
}

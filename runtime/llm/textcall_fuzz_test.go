package llm

import (
	"encoding/json"
	"testing"
)

// FuzzCallFromText: whatever text a model sends, a call taken from it is one valid JSON object,
// and nothing panics.
func FuzzCallFromText(f *testing.F) {
	for _, s := range []string{
		`{"name": "report_observation", "arguments": {"a": 1}}`,
		"<tool_call>\n{\"name\": \"report_observation\", \"parameters\": {}}\n</tool_call>",
		"<think>x</think>```json\n{\"a\": [1]}\n```",
		`{"name": "report_observation", "arguments": "{\"a\": 1}"}`,
		`{"name": 3}`, "``````", "<think>", `{"a":1} {"b":2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := callFromText(s, "report_observation")
		if got == nil {
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(got, &obj); err != nil {
			t.Fatalf("callFromText(%q) = %q: not a JSON object: %v", s, got, err)
		}
	})
}

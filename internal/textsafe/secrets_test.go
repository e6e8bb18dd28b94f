package textsafe

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMaskSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"no secrets here", "no secrets here"},
		{"key sk-abcdefghijklmnopqrstuvwx end", "key " + Redacted + " end"},
		{"AKIAABCDEFGHIJKLMNOP", Redacted},
		{"api_key=abcdefghijklmnop1234", Redacted},
		{"a task-list of sk-12", "a task-list of sk-12"},
	}
	for _, tt := range tests {
		if got := MaskSecrets(tt.in); got != tt.want {
			t.Errorf("MaskSecrets(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzMaskSecretsKeepsJSON: masking runs on encoded payloads, so it must never break valid JSON,
// and no pattern match may survive it.
func FuzzMaskSecretsKeepsJSON(f *testing.F) {
	f.Add(`{"text":"my key sk-proj-abcdefghijklmnopqrstuvwxyz"}`)
	f.Add(`{"t":"Bearer abc.def-ghi_jkl~mno+pqr/stu="}`)
	f.Add(`{"t":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2ln"}`)
	f.Add(`{"apiKey": "abcdefghijklmnopqrstuv"}`)
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := json.Marshal(map[string]string{"text": text, "k": text})
		if err != nil {
			return
		}
		masked, _ := MaskSecretsJSON(doc)
		if !json.Valid(masked) {
			t.Fatalf("masking broke JSON: %s -> %s", doc, masked)
		}
		var back map[string]string
		if err := json.Unmarshal(masked, &back); err != nil {
			t.Fatal(err)
		}
		for _, re := range secretPatterns {
			if loc := re.FindStringIndex(back["text"]); loc != nil && !strings.Contains(back["text"][loc[0]:loc[1]], Redacted) {
				t.Fatalf("secret survived masking: %q", back["text"])
			}
		}
	})
}

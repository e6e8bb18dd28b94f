package textsafe

import (
	"bytes"
	"encoding/json"
	"regexp"
)

// Redacted replaces a secret-looking value.
const Redacted = "[REDACTED]"

// secretPatterns match credentials by shape.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`sk-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_\-]{16,}`),                           // OpenAI-style API keys
	regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`),               // JWTs (LiveKit access tokens)
	regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._~+/\-]{16,}=*`),                                      // HTTP bearer credentials
	regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`),                                                      // Google API keys
	regexp.MustCompile(`AKIA[0-9A-Z]{16}`),                                                            // AWS access key ids
	regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}`),                                                  // GitHub tokens
	regexp.MustCompile(`(?i)(?:api[_\-]?key|api[_\-]?secret)["']?\s*[:=]\s*["']?[A-Za-z0-9_\-]{16,}`), // key=value leaks
}

// mayHoldSecret is a cheap pre-check: every pattern needs one of these substrings, so most
// payloads skip the regular expressions entirely.
func mayHoldSecret(b []byte) bool {
	for _, h := range [][]byte{[]byte("sk-"), []byte("eyJ"), []byte("AIza"), []byte("AKIA"), []byte("gh")} {
		if bytes.Contains(b, h) {
			return true
		}
	}
	lower := bytes.ToLower(b)
	return bytes.Contains(lower, []byte("bearer")) || bytes.Contains(lower, []byte("api"))
}

// MaskSecretsJSON reports whether the JSON document b holds a secret-looking string and returns
// it with every such value replaced by Redacted. Strings are matched decoded, so an escape in
// the encoding cannot hide a secret; a document without secrets is returned byte for byte.
func MaskSecretsJSON(b []byte) (masked []byte, found bool) {
	if !mayHoldSecret(b) {
		return b, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return maskText(b)
	}
	v, found = maskValue(v)
	if !found {
		return b, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return maskText(b)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

func maskValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		m, found := maskText([]byte(x))
		return string(m), found
	case []any:
		found := false
		for i := range x {
			var f bool
			x[i], f = maskValue(x[i])
			found = found || f
		}
		return x, found
	case map[string]any:
		found := false
		for k, e := range x {
			m, f := maskValue(e)
			x[k] = m
			found = found || f
		}
		return x, found
	}
	return v, false
}

func maskText(b []byte) ([]byte, bool) {
	found := false
	for _, re := range secretPatterns {
		if re.Match(b) {
			found = true
			b = re.ReplaceAll(b, []byte(Redacted))
		}
	}
	return b, found
}

// MaskSecrets masks secret-looking values in s: the one set of credential shapes that the
// store, exports, logs and error messages all mask.
func MaskSecrets(s string) string {
	m, found := maskText([]byte(s))
	if !found {
		return s
	}
	return string(m)
}

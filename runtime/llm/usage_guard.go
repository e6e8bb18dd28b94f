package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/runtime"
)

// A server's usage object is figures we add up and price, not something to trust: a negative
// count was stored and shown as a negative cost, int64's maximum wrapped a sum to -2, and a
// float or a string made go-openai refuse the whole reply, failing a turn whose answer was fine.
// The usage guard reads every reply before go-openai does: a usage object whose token counts
// are not whole numbers from 0 to runtime.MaxUsageTokens is replaced by null (the counts are
// then unknown) and the reason is kept for the caller, which records it as a system_error. The
// rest of the reply is untouched.

// usageGuard is a transport that checks the usage of every reply through it.
type usageGuard struct {
	base http.RoundTripper
}

// GuardUsage wraps base (Go's default transport when nil) with the usage guard: the panel's
// clients and the examiner's use it, so every chat completion examtui reads is checked the same.
func GuardUsage(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &usageGuard{base: base}
}

func (g *usageGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(r)
	if err == nil {
		guardBody(resp, nil)
	}
	return resp, err
}

// guardBody puts the usage guard on a successful reply's body; m (may be nil) gets the reason
// when the usage is refused.
func guardBody(resp *http.Response, m *respMeta) {
	if resp == nil || resp.Body == nil || resp.StatusCode >= 300 {
		return
	}
	resp.Body = newUsageBody(resp.Body, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"), m)
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the wrapped transport.
func (g *usageGuard) CloseIdleConnections() {
	if c, ok := g.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// usageBody rewrites the usage of a JSON reply (read whole: the size cap bounds it) or of each
// event of a stream (line by line).
type usageBody struct {
	rc     io.ReadCloser
	stream bool
	br     *bufio.Reader
	meta   *respMeta
	out    bytes.Buffer
	err    error
	mu     sync.Mutex
}

func newUsageBody(rc io.ReadCloser, stream bool, m *respMeta) *usageBody {
	return &usageBody{rc: rc, stream: stream, br: bufio.NewReaderSize(rc, 64<<10), meta: m}
}

func (b *usageBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.out.Len() == 0 && b.err == nil {
		b.fill()
	}
	if b.out.Len() > 0 {
		return b.out.Read(p)
	}
	return 0, b.err
}

func (b *usageBody) fill() {
	if !b.stream {
		all, err := io.ReadAll(b.br)
		b.out.Write(b.check(all))
		b.err = err
		if err == nil {
			b.err = io.EOF
		}
		return
	}
	line, err := b.br.ReadBytes('\n')
	if data, ok := bytes.CutPrefix(line, []byte("data:")); ok && bytes.Contains(data, []byte(`"usage"`)) {
		trimmed := bytes.TrimSpace(data)
		nl := line[len(bytes.TrimRight(line, "\r\n")):]
		checked := b.check(trimmed)
		if !bytes.Equal(checked, trimmed) {
			line = append(append([]byte("data: "), checked...), nl...)
		}
	}
	b.out.Write(line)
	b.err = err
}

// check returns obj with its usage replaced by null when the usage is not valid, recording why.
func (b *usageBody) check(obj []byte) []byte {
	out, reason := CheckUsageJSON(obj)
	if reason != "" && b.meta != nil {
		b.meta.usageInvalid = reason
	}
	return out
}

func (b *usageBody) Close() error { return b.rc.Close() }

// CheckUsageJSON checks the "usage" of one JSON object as a server sent it: when its token
// counts are whole numbers from 0 to runtime.MaxUsageTokens (or it is absent or null) obj is
// returned as it is; otherwise obj with "usage": null, and the reason. Anything that is not a
// JSON object is returned as it is: the reply's own parser judges it.
func CheckUsageJSON(obj []byte) ([]byte, string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj, ""
	}
	raw, ok := m["usage"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return obj, ""
	}
	reason := usageProblem(raw)
	if reason == "" {
		return obj, ""
	}
	m["usage"] = json.RawMessage("null")
	out, err := json.Marshal(m)
	if err != nil {
		return obj, ""
	}
	return out, reason
}

// usageProblem says what is wrong with a usage object ("" when nothing).
func usageProblem(raw json.RawMessage) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "usage is not an object"
	}
	var bad []string
	for _, k := range []string{"prompt_tokens", "completion_tokens", "total_tokens"} {
		v, ok := fields[k]
		if !ok {
			continue
		}
		var n json.Number
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&n) != nil {
			bad = append(bad, fmt.Sprintf("%s %s", k, clip(v)))
			continue
		}
		i, err := n.Int64()
		if err != nil || i < 0 || i > runtime.MaxUsageTokens {
			bad = append(bad, fmt.Sprintf("%s %s", k, clip(v)))
		}
	}
	if len(bad) == 0 {
		// The counts are fine; the rest (token details) must still decode as go-openai's.
		var u openai.Usage
		if err := json.Unmarshal(raw, &u); err != nil {
			return "usage details: " + clip([]byte(err.Error()))
		}
		return ""
	}
	return fmt.Sprintf("not whole numbers from 0 to %d: %s", runtime.MaxUsageTokens, strings.Join(bad, ", "))
}

// clip keeps a hostile value short in a reason.
func clip(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// fuzzExport builds and writes the artifact of a session made from fuzz input: script picks
// the events one byte at a time, texts (split at '|') gives every string they carry (ids,
// titles, excerpts, signal and guardrail names, reasons, actions), maxEvents the bound. It
// returns nil when the session has nothing to export.
func fuzzExport(t *testing.T, script []byte, texts string, maxEvents uint8) []byte {
	t.Helper()
	pool := strings.Split(texts, "|")
	next := 0
	text := func() string {
		s := pool[next%len(pool)]
		next++
		return s
	}
	sess := &Session{ID: text(), ExamID: text(), Title: text(), State: runtime.StateInProgress, StartedAt: fixtureStart}
	var events []runtime.Event
	now := fixtureStart
	add := func(p runtime.Payload) {
		now = now.Add(time.Millisecond)
		ev, err := runtime.NewEvent(sess.ID, int64(len(events)+1), now, p)
		if err != nil {
			return // the runtime never makes this event
		}
		events = append(events, ev)
	}
	for _, b := range script {
		switch b % 12 {
		case 0:
			add(&runtime.NodeEnteredPayload{NodeID: text(), Kind: "assessment"})
		case 1:
			add(&runtime.NodeExitPayload{NodeID: text(), Reason: runtime.ExitReason(text()), Next: text()})
		case 2:
			add(obs(text(), int(b), true, runtime.DecisionActions[int(b/12)%len(runtime.DecisionActions)], text(), runtime.Latency{}))
		case 3:
			add(obs(text(), int(b), false, runtime.DecisionAction(text()), text(), runtime.Latency{}))
		case 4:
			add(&runtime.EvidenceUpdatePayload{NodeID: text(), SignalType: text(), Excerpt: text()})
		case 5:
			add(&runtime.GuardrailTriggeredPayload{Guardrail: text(), NodeID: text(), Action: runtime.GuardrailAction(text()), OriginalText: text()})
		case 6:
			add(&runtime.SpokenPayload{NodeID: text(), Text: text(), Source: runtime.SpokenExaminer})
		case 7:
			add(cand(text(), text(), text(), 0.9, int64(b)))
		case 8:
			add(&runtime.ExamStatePayload{State: runtime.StateAborted, Previous: runtime.StateInProgress})
		case 9:
			add(&runtime.ExamStatePayload{State: runtime.StateExpired, Previous: runtime.StateInProgress})
		case 10:
			add(&runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress})
		case 11:
			add(&runtime.ExamCompletedPayload{State: runtime.StateCompleted})
		}
	}
	if len(script) > 0 && script[0]%2 == 1 {
		sess.Interrupted = true
	}
	rr, err := BuildRunResult(sess, events, WithMaxEvents(2+int(maxEvents%24)), WithSDKVersion(text()))
	if errors.Is(err, ErrNothingToExport) {
		return nil
	}
	if err != nil {
		t.Fatalf("BuildRunResult: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteRunResult(&buf, rr); err != nil {
		t.Fatalf("the exporter made what its validator rejects: %v", err)
	}
	return buf.Bytes()
}

// FuzzRunResultExportEvents: the exporter is the validator's oracle. Whatever events go in,
// what BuildRunResult and WriteRunResult write passes ValidateArtifact.
func FuzzRunResultExportEvents(f *testing.F) {
	f.Add([]byte{0, 2, 4, 1, 0, 5, 10, 11}, "sess01|exam|Hotel exam|welcome|evidence_sufficient|scenario|follow up|proposes_options|stagger the buffet", uint8(22))
	f.Add([]byte{0, 4, 4, 4, 4, 5, 1, 0, 8}, "s|e|t\x1b[2J|n|sk-proj-abcdefghijklmnopqrstuvwx|"+strings.Repeat("QUJD", 30)+"|a\u202eb|eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl|x\ny", uint8(3))
	f.Add([]byte{1, 4, 5, 7, 6, 9}, "api_key=abcdefghijklmnopqrstuv|bearer abcdefghijklmnopqrstuvwxyz|\xff\xfe|"+strings.Repeat("deadbeef", 6), uint8(0))
	f.Fuzz(func(t *testing.T, script []byte, texts string, maxEvents uint8) {
		out := fuzzExport(t, script, texts, maxEvents)
		if out == nil {
			return
		}
		if problems := ValidateArtifact(out); len(problems) > 0 {
			t.Fatalf("validator rejects the export: %v\n%s", problems, out)
		}
	})
}

// artifactMutations are edits that give an artifact the exporter would never write. Each
// takes the decoded artifact and where (a fuzz number) and reports whether it applied.
var artifactMutations = []struct {
	name string
	// inject is text put into a string field (a raw byte sequence for invalid UTF-8).
	inject string
	// contentOnly: the rule holds for message content only (the exporter masks encoded runs in
	// excerpts; ids may be long words).
	contentOnly bool
}{
	{"API key", " sk-proj-abcdefghijklmnopqrstuvwx ", false},
	{"JWT", " eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJlMTIz ", false},
	{"bearer token", " Bearer abcdefghijklmnopqrstuvwxyz012345 ", false},
	{"newline", "a\nb", false},
	{"carriage return", "a\rb", false},
	{"tab", "a\tb", false},
	{"line separator", "a\u2028b", false},
	{"escape", "\x1b[2J", false},
	{"bell", "\a", false},
	{"NUL", "\x00", false},
	{"DEL", "\x7f", false},
	{"C1", "\u009b", false},
	{"bidi override", "\u202e", false},
	{"bidi isolate", "\u2066", false},
	{"invalid UTF-8", "\xff\xfe", false},
	{"base64 run", " " + strings.Repeat("QUJD", 12) + " ", true},
	{"hex run", " " + strings.Repeat("deadbeef", 5) + " ", true},
}

// stringFields lists the paths of the string values an artifact holds, in a fixed order.
func stringFields(x any, path []any, out *[][]any) {
	switch x := x.(type) {
	case string:
		*out = append(*out, append([]any(nil), path...))
	case []any:
		for i, e := range x {
			stringFields(e, append(path, i), out)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			stringFields(x[k], append(path, k), out)
		}
	}
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// FuzzArtifactMutation: a valid export, mutated into something the exporter would never
// write (a secret, an encoded run, a line break, a control or bidirectional character,
// invalid UTF-8 in any string; a truncation object that does not add up), is rejected.
func FuzzArtifactMutation(f *testing.F) {
	f.Add([]byte{0, 2, 4, 1, 0, 5, 10, 11}, "sess01|exam|Hotel exam|welcome|evidence_sufficient|scenario|follow up|proposes_options|stagger the buffet", uint8(22), uint16(0), uint16(3), uint8(0))
	f.Add([]byte{0, 4, 4, 4, 4, 5, 1, 0, 8, 4, 4, 4}, "s|e|t|n|words here|more words", uint8(3), uint16(7), uint16(2), uint8(1))
	f.Add([]byte{0, 4, 4, 4, 4, 5, 1, 0, 8, 4, 4, 4}, "s|e|t|n|words here|more words", uint8(3), uint16(15), uint16(40), uint8(5))
	f.Fuzz(func(t *testing.T, script []byte, texts string, maxEvents uint8, which, where uint16, at uint8) {
		out := fuzzExport(t, script, texts, maxEvents)
		if out == nil {
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		n := len(artifactMutations) + len(truncationBreaks)
		k := int(which) % n
		if k >= len(artifactMutations) {
			br := truncationBreaks[k-len(artifactMutations)]
			tr, ok := doc["truncation"].(map[string]any)
			if !ok {
				return
			}
			br.apply(doc, tr)
			expectRejected(t, br.name, mustMarshal(t, doc))
			return
		}
		m := artifactMutations[k]
		var fields [][]any
		stringFields(doc, nil, &fields)
		if m.contentOnly {
			fields = slices.DeleteFunc(fields, func(p []any) bool { return p[len(p)-1] != "content" })
		}
		if len(fields) == 0 {
			return
		}
		path := fields[int(where)%len(fields)]
		// The injected text goes in through a placeholder so raw bytes (invalid UTF-8) reach
		// the file as they are.
		const placeholder = "ZQXPLACEHOLDERZQX"
		setString(doc, path, func(s string) string {
			r := []rune(s)
			i := int(at) % (len(r) + 1)
			return string(r[:i]) + placeholder + string(r[i:])
		})
		injected, err := json.Marshal(m.inject)
		if err != nil {
			t.Fatal(err)
		}
		inj := strings.Trim(string(injected), `"`)
		if m.name == "invalid UTF-8" {
			inj = m.inject // json.Marshal would have made it U+FFFD
		}
		b := bytes.Replace(mustMarshal(t, doc), []byte(placeholder), []byte(inj), 1)
		expectRejected(t, m.name+" in "+pathText(path), b)
	})
}

// truncationBreaks make a truncation object inconsistent with itself or the events.
var truncationBreaks = []struct {
	name  string
	apply func(doc, tr map[string]any)
}{
	{"kept_events off by one", func(_, tr map[string]any) { tr["kept_events"] = tr["kept_events"].(float64) + 1 }},
	{"dropped_events off by one", func(_, tr map[string]any) { tr["dropped_events"] = tr["dropped_events"].(float64) + 1 }},
	{"a negative count that keeps the sum", func(_, tr map[string]any) {
		by := tr["dropped_by_type"].(map[string]any)
		for _, k := range sortedKeys(by) {
			by[k] = by[k].(float64) + 1
			break
		}
		for _, typ := range []string{"message", "function_call", "function_call_output", "agent_handoff"} {
			if _, ok := by[typ]; !ok {
				by[typ] = -1.0
				return
			}
		}
		by["zz_unknown"] = -1.0
	}},
	{"a zero count", func(_, tr map[string]any) {
		by := tr["dropped_by_type"].(map[string]any)
		for _, typ := range []string{"message", "function_call", "function_call_output", "agent_handoff"} {
			if _, ok := by[typ]; !ok {
				by[typ] = 0.0
				return
			}
		}
		by["zz_unknown"] = 0.0
	}},
	{"exam_outcome no exam ends with", func(_, tr map[string]any) { tr["exam_outcome"] = ErrorLabelTruncated }},
	{"marker status disagrees", func(doc, _ map[string]any) {
		evs := doc["events"].([]any)
		evs[len(evs)-1].(map[string]any)["status"] = "dropped_0"
	}},
	{"an unknown truncation field", func(_, tr map[string]any) { tr["note"] = "x" }},
	{"outcome completed", func(doc, _ map[string]any) { doc["outcome"] = "completed"; delete(doc, "error_label") }},
	{"truncation removed", func(doc, _ map[string]any) { delete(doc, "truncation") }},
	{"marker moved up", func(doc, _ map[string]any) {
		evs := doc["events"].([]any)
		evs[0], evs[len(evs)-1] = evs[len(evs)-1], evs[0]
	}},
}

func expectRejected(t *testing.T, what string, b []byte) {
	t.Helper()
	if problems := ValidateArtifact(b); len(problems) == 0 {
		t.Fatalf("%s: the validator accepts what the exporter never writes:\n%s", what, b)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setString(x any, path []any, f func(string) string) {
	switch p := path[0].(type) {
	case string:
		m := x.(map[string]any)
		if len(path) == 1 {
			m[p] = f(m[p].(string))
			return
		}
		setString(m[p], path[1:], f)
	case int:
		a := x.([]any)
		if len(path) == 1 {
			a[p] = f(a[p].(string))
			return
		}
		setString(a[p], path[1:], f)
	}
}

func pathText(path []any) string {
	b, _ := json.Marshal(path)
	return string(b)
}

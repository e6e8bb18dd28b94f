package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/internal/textsafe"
)

// The runresult artifact (docs/outputs.md): a bounded test-result record
// derived from a session, shaped like LiveKit Agents' voice.testing.RunResult events.
const (
	RunResultSchema      = "livekit-agents.voice-testing.run-result.v1"
	RunResultFramework   = "livekit_agents"
	RunResultSurface     = "voice_testing_run_result"
	RunResultRuntimeMode = "voice.testing"
)

// Bounds of the artifact. They keep every field reviewable: a value past them is a dump, not
// evidence.
const (
	MaxArtifactEvents = 2000
	MaxTaskLabel      = 120
	MaxContent        = 500
	MaxRef            = 200
	MaxLabel          = 64
	MaxStatus         = 32
)

// Outcome is the artifact's result.
type Outcome string

// Outcomes.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeFailed    Outcome = "failed"
)

func (o Outcome) String() string { return string(o) }

// RunEventType is the type of one artifact event.
type RunEventType string

// The four v1 event types.
const (
	RunEventMessage            RunEventType = "message"
	RunEventFunctionCall       RunEventType = "function_call"
	RunEventFunctionCallOutput RunEventType = "function_call_output"
	RunEventAgentHandoff       RunEventType = "agent_handoff"
)

func (t RunEventType) String() string { return string(t) }

// RunResult is the artifact.
type RunResult struct {
	Schema         string  `json:"schema"`
	Framework      string  `json:"framework"`
	Surface        string  `json:"surface"`
	RuntimeMode    string  `json:"runtime_mode"`
	TaskLabel      string  `json:"task_label"`
	Timestamp      string  `json:"timestamp"`
	Outcome        Outcome `json:"outcome"`
	ErrorLabel     string  `json:"error_label,omitempty"`
	AgentRef       string  `json:"agent_ref,omitempty"`
	SDKVersionRef  string  `json:"sdk_version_ref,omitempty"`
	FinalOutputRef string  `json:"final_output_ref,omitempty"`
	// Truncation is set only on an artifact cut at its event bound (an examtui extension;
	// unknown top-level fields are ignored by v1 consumers).
	Truncation *Truncation `json:"truncation,omitempty"`
	// Omitted counts what the artifact leaves out by design (an examtui extension).
	Omitted *Omitted   `json:"omitted,omitempty"`
	Events  []RunEvent `json:"events"`
}

// RunEvent is one typed event; which fields are set depends on Type.
type RunEvent struct {
	Type         RunEventType `json:"type"`
	Role         string       `json:"role,omitempty"`
	Content      string       `json:"content,omitempty"`
	Name         string       `json:"name,omitempty"`
	ArgumentsRef string       `json:"arguments_ref,omitempty"`
	Status       string       `json:"status,omitempty"`
	NewAgent     string       `json:"new_agent,omitempty"`
}

// Problem is one way an artifact is malformed.
type Problem struct {
	Path    string // JSON path: "", "outcome", "events[3].content"
	Message string
}

// String is the problem on one line, safe to print: a path can hold a key from the file.
func (p Problem) String() string {
	if p.Path == "" {
		return textsafe.Line(p.Message)
	}
	return textsafe.Line(p.Path + ": " + p.Message)
}

// eventFields lists every field an event of each type may carry; the first ones are required.
var eventFields = map[RunEventType]struct{ required, optional []string }{
	RunEventMessage:            {[]string{"type", "role", "content"}, nil},
	RunEventFunctionCall:       {[]string{"type", "name"}, []string{"arguments_ref"}},
	RunEventFunctionCallOutput: {[]string{"type", "name"}, []string{"status"}},
	RunEventAgentHandoff:       {[]string{"type", "new_agent"}, nil},
}

var (
	messageRoles = []string{"user", "assistant", "system", "developer"}
	labelPattern = regexp.MustCompile(`^[a-z][a-z0-9_.:\-]*$`)
	namePattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)
)

// truncationFields are the fields of the truncation extension.
var truncationFields = []string{"kept_events", "dropped_events", "dropped_by_type", "exam_outcome"}

// ValidateArtifact checks a runresult artifact strictly and returns every problem found (nil
// when it is valid). Unknown top-level fields are ignored; anything else outside the bounded
// seam (unknown event types or event fields, dumps, oversize values) is a problem.
func ValidateArtifact(data []byte) []Problem {
	var v validator
	// encoding/json would read invalid bytes as U+FFFD; the exporter only writes UTF-8.
	if !utf8.Valid(data) {
		return []Problem{{"", fmt.Sprintf("not valid UTF-8 (at byte %d)", invalidUTF8At(data))}}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return []Problem{{"", fmt.Sprintf("not JSON: %v", err)}}
	}
	if dec.More() {
		return []Problem{{"", "trailing data after the JSON document"}}
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return []Problem{{"", "must be a JSON object, got " + jsonKind(top)}}
	}
	v.texts("", top)
	v.constant(obj, "schema", RunResultSchema)
	v.constant(obj, "framework", RunResultFramework)
	v.constant(obj, "surface", RunResultSurface)
	v.constant(obj, "runtime_mode", RunResultRuntimeMode)
	if s, ok := v.str(obj, "task_label", true); ok {
		v.bounded("task_label", s, MaxTaskLabel)
	}
	if s, ok := v.str(obj, "timestamp", true); ok {
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			v.add("timestamp", "must be an RFC 3339 time, got %q", s)
		}
	}
	outcome, hasOutcome := v.str(obj, "outcome", true)
	if hasOutcome && outcome != string(OutcomeCompleted) && outcome != string(OutcomeFailed) {
		v.add("outcome", "must be %q or %q, got %q", OutcomeCompleted, OutcomeFailed, outcome)
		hasOutcome = false
	}
	label, hasLabel := v.str(obj, "error_label", false)
	if hasLabel {
		v.bounded("error_label", label, MaxLabel)
		if !labelPattern.MatchString(label) {
			v.add("error_label", "must be a short classifier label (lowercase letters, digits, _ . : -), got %q", truncateRunes(label, 40))
		}
	}
	if hasOutcome {
		_, labelPresent := obj["error_label"]
		switch {
		case outcome == string(OutcomeCompleted) && labelPresent:
			v.add("error_label", "must be absent when outcome is completed")
		case outcome == string(OutcomeFailed) && !labelPresent:
			v.add("error_label", "is required when outcome is failed")
		}
	}
	if s, ok := v.str(obj, "agent_ref", false); ok {
		v.bounded("agent_ref", s, MaxLabel)
	}
	if s, ok := v.str(obj, "sdk_version_ref", false); ok {
		v.bounded("sdk_version_ref", s, MaxLabel)
	}
	if s, ok := v.str(obj, "final_output_ref", false); ok {
		v.bounded("final_output_ref", s, MaxRef)
	}
	raw, present := obj["events"]
	evs, _ := raw.([]any)
	v.truncation(obj, evs, outcome, label)
	switch evs, isArr := raw.([]any); {
	case !present:
		v.add("events", "is required")
	case !isArr:
		v.add("events", "must be an array, got %s", jsonKind(raw))
	case len(evs) == 0:
		v.add("events", "must not be empty")
	case len(evs) > MaxArtifactEvents:
		v.add("events", "has %d events, more than the bound of %d", len(evs), MaxArtifactEvents)
	default:
		_, isTruncated := obj["truncation"]
		for i, e := range evs {
			path := fmt.Sprintf("events[%d]", i)
			v.event(path, e)
			m, _ := e.(map[string]any)
			if m["name"] == fnTruncated && (!isTruncated || i != len(evs)-1) {
				v.add(path+".name", "the %s marker only closes a truncated artifact", fnTruncated)
			}
			if m["name"] == fnNoTurns && (len(evs) != 1 || m["type"] != string(RunEventFunctionCallOutput) || m["status"] != statusNoTurns) {
				v.add(path+".name", "the %s marker is the whole of an artifact with nothing to list: one %s event with status %q",
					fnNoTurns, RunEventFunctionCallOutput, statusNoTurns)
			}
		}
	}
	return v.problems
}

type validator struct{ problems []Problem }

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{path, fmt.Sprintf(format, args...)})
}

// str reads a string field; a present field of another type is a problem.
func (v *validator) str(obj map[string]any, key string, required bool) (string, bool) {
	return v.strAt(obj, key, key, required)
}

func (v *validator) strAt(obj map[string]any, key, path string, required bool) (string, bool) {
	raw, ok := obj[key]
	if !ok {
		if required {
			v.add(path, "is required")
		}
		return "", false
	}
	s, ok := raw.(string)
	if !ok {
		v.add(path, "must be a string, got %s", jsonKind(raw))
		return "", false
	}
	return s, true
}

// texts checks every string of the document, keys and values, wherever it is (unknown fields
// included), against what the exporter never writes in any string:
//   - control or bidirectional characters (ESC, BEL, NUL, DEL, C1, U+202E...), which a
//     terminal would act on or show reordered: the exporter strips them;
//   - line breaks, tabs or other whitespace but the space: every exported string is one line;
//   - a secret-looking value (API key, JWT, bearer token): the exporter masks them with the
//     journal's patterns (textsafe.MaskSecrets).
func (v *validator) texts(path string, x any) {
	switch x := x.(type) {
	case string:
		v.text(path, x)
	case []any:
		for i, e := range x {
			v.texts(fmt.Sprintf("%s[%d]", path, i), e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			v.text(p+" (key)", k)
			v.texts(p, x[k])
		}
	}
}

func (v *validator) text(path, s string) {
	if textsafe.Unsafe(s) {
		v.add(path, "contains control or bidirectional characters (ESC, BEL, NUL, DEL, C1, U+202E...)")
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r != ' ' && unicode.IsSpace(r) }) {
		v.add(path, "must be a single line (no line breaks or tabs)")
	}
	if textsafe.MaskSecrets(s) != s {
		v.add(path, "holds a secret-looking value (API key, token): the exporter writes %s", Redacted)
	}
}

// invalidUTF8At is the offset of the first byte that is not UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// truncation checks the examtui truncation extension: when present, the artifact must say it
// failed as truncated and end with the marker; an artifact labelled truncated must carry it.
func (v *validator) truncation(obj map[string]any, events []any, outcome, label string) {
	raw, present := obj["truncation"]
	if !present {
		if label == ErrorLabelTruncated {
			v.add("truncation", "is required when error_label is %q", ErrorLabelTruncated)
		}
		return
	}
	t, ok := raw.(map[string]any)
	if !ok {
		v.add("truncation", "must be an object, got %s", jsonKind(raw))
		return
	}
	count := func(key string) (int64, bool) {
		n, ok := t[key].(json.Number)
		if !ok {
			v.add("truncation."+key, "must be a count, got %s", jsonKind(t[key]))
			return 0, false
		}
		i, err := n.Int64()
		if err != nil || i < 0 {
			v.add("truncation."+key, "must be a non-negative integer, got %s", n)
			return 0, false
		}
		return i, true
	}
	if kept, ok := count("kept_events"); ok && events != nil && kept != int64(len(events)-1) {
		v.add("truncation.kept_events", "is %d but the artifact holds %d events before the marker", kept, len(events)-1)
	}
	dropped, ok := count("dropped_events")
	if ok && dropped == 0 {
		v.add("truncation.dropped_events", "must be positive: nothing was dropped")
	}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(truncationFields, k) {
			v.add("truncation."+k, "field not allowed (known: %s)", strings.Join(truncationFields, ", "))
		}
	}
	if by, ok := t["dropped_by_type"].(map[string]any); !ok {
		v.add("truncation.dropped_by_type", "must be an object, got %s", jsonKind(t["dropped_by_type"]))
	} else {
		// The exporter counts what it dropped by type: only types it dropped, each at least once.
		var sum int64
		consistent := true
		for _, k := range slices.Sorted(maps.Keys(by)) {
			if _, known := eventFields[RunEventType(k)]; !known {
				v.add("truncation.dropped_by_type."+k, "unknown event type")
			}
			c, _ := by[k].(json.Number)
			i, err := c.Int64()
			if err != nil || i <= 0 {
				v.add("truncation.dropped_by_type."+k, "must be a positive count, got %s", jsonText(by[k]))
				consistent = false
				continue
			}
			sum += i
		}
		if consistent && dropped > 0 && sum != dropped {
			v.add("truncation.dropped_by_type", "adds up to %d, not dropped_events %d", sum, dropped)
		}
	}
	if s, ok := v.strAt(t, "exam_outcome", "truncation.exam_outcome", true); ok && !slices.Contains(examOutcomes, s) {
		v.add("truncation.exam_outcome", "must be one of %s (how the whole exam ended), got %q", strings.Join(examOutcomes, ", "), truncateRunes(s, 40))
	}
	if outcome != string(OutcomeFailed) || label != ErrorLabelTruncated {
		v.add("outcome", "a truncated artifact must be failed with error_label %q: its end is not the exam's", ErrorLabelTruncated)
	}
	if len(events) > 0 {
		last, _ := events[len(events)-1].(map[string]any)
		if last["type"] != string(RunEventFunctionCallOutput) || last["name"] != fnTruncated {
			v.add(fmt.Sprintf("events[%d]", len(events)-1), "a truncated artifact must end with the %s marker", fnTruncated)
		} else if want := truncatedStatus(dropped); dropped > 0 && last["status"] != want {
			v.add(fmt.Sprintf("events[%d].status", len(events)-1), "must be %q: the marker says how many events were dropped, got %s", want, jsonText(last["status"]))
		}
	}
}

func (v *validator) constant(obj map[string]any, key, want string) {
	if s, ok := v.str(obj, key, true); ok && s != want {
		v.add(key, "must be %q, got %q", want, truncateRunes(s, 60))
	}
}

// bounded checks a short value (one line: texts checks that for every string).
func (v *validator) bounded(path, s string, maxRunes int) {
	if strings.TrimSpace(s) == "" {
		v.add(path, "must not be empty")
		return
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		v.add(path, "is %d characters, more than the bound of %d", n, maxRunes)
	}
}

func (v *validator) event(path string, raw any) {
	obj, ok := raw.(map[string]any)
	if !ok {
		v.add(path, "must be an object, got %s", jsonKind(raw))
		return
	}
	typ, ok := v.strAt(obj, "type", path+".type", true)
	if !ok {
		return
	}
	fields, known := eventFields[RunEventType(typ)]
	if !known {
		v.add(path+".type", "unknown event type %q (v1 allows message, function_call, function_call_output, agent_handoff)", truncateRunes(typ, 40))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(fields.required, k) && !slices.Contains(fields.optional, k) {
			v.add(path+"."+k, "field not allowed in a v1 %s event (no transcripts, audio, raw arguments or outputs)", typ)
		}
	}
	for _, k := range fields.required[1:] {
		if _, ok := obj[k]; !ok {
			v.add(path+"."+k, "is required in %s events", typ)
		}
	}
	switch RunEventType(typ) {
	case RunEventMessage:
		if role, ok := v.strAt(obj, "role", path+".role", false); ok && !slices.Contains(messageRoles, role) {
			v.add(path+".role", "must be one of %s, got %q", strings.Join(messageRoles, ", "), truncateRunes(role, 40))
		}
		if c, present := obj["content"]; present {
			s, ok := c.(string)
			if !ok {
				v.add(path+".content", "must be a short string, got %s", jsonKind(c))
				break
			}
			v.content(path+".content", s)
		}
	case RunEventFunctionCall, RunEventFunctionCallOutput:
		if name, ok := v.strAt(obj, "name", path+".name", false); ok {
			v.bounded(path+".name", name, MaxLabel)
			if name != "" && !namePattern.MatchString(name) {
				v.add(path+".name", "must be a function name, got %q", truncateRunes(name, 40))
			}
		}
		if s, ok := v.strAt(obj, "arguments_ref", path+".arguments_ref", false); ok {
			v.bounded(path+".arguments_ref", s, MaxRef)
		}
		if s, ok := v.strAt(obj, "status", path+".status", false); ok {
			v.bounded(path+".status", s, MaxStatus)
		}
	case RunEventAgentHandoff:
		if s, ok := v.strAt(obj, "new_agent", path+".new_agent", false); ok {
			v.bounded(path+".new_agent", s, MaxLabel)
		}
	}
}

// content checks a message body: short, one utterance, no encoded payloads.
func (v *validator) content(path, s string) {
	if n := utf8.RuneCountInString(s); n > MaxContent {
		v.add(path, "is %d characters, more than the bound of %d", n, MaxContent)
	}
	if strings.TrimSpace(s) == "" {
		v.add(path, "must not be empty")
	}
	// A multi-turn dump needs line breaks, which texts refuses in every string. An encoded run
	// is measured with the exporter's own pattern: it removes every run of that length.
	if encodedRun.MatchString(s) {
		v.add(path, "contains a long encoded run (base64 or hex of %d characters or more: audio, binary or a token)", encodedRunMin)
	}
}

// jsonText is a JSON value for a message, short.
func jsonText(x any) string {
	b, err := json.Marshal(x)
	if err != nil {
		return jsonKind(x)
	}
	return truncateRunes(string(b), 40)
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// truncateRunes shortens s to at most n runes, marking the cut with an ellipsis.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

package spec

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// compilerOnlyRules are the rules the compiler enforces and the JSON Schema cannot express
// (docs/exam-format.md, "What only examtui check checks"), each with the words of its
// diagnostic. A generated case may disagree with ajv only when the compiler rejects it with
// these diagnostics alone, and each rule must still be met somewhere, so the list cannot go
// stale. The one rule the walk cannot reach (an action both allowed and forbidden: the schema
// has no rule across two lists to break) is a case of TestSchemaCompilerParity.
var compilerOnlyRules = []struct{ name, diagnostic string }{
	{"a persona reference names no persona", "unknown persona"},
	{"check-in time 0 while check-ins are enabled", "silence checkInSec must be positive"},
	{"wrapup on a beat that is not the last exam beat", "only the last exam beat may have wrapup"},
	{"turn-taking delays out of order", "are out of order"},
	{"a variant's probes or cues name a signal the node does not listen for", "is not a signal of this node"},
	{"marking: a criterion's level marks not increasing", "level marks are not increasing"},
	{"marking: two grades starting at the same total", "both start at"},
}

// parityExtras adds to the example every optional field it leaves out, so that the walk over
// the schema reaches every property with a value to break.
const parityExtras = `
context: {summaryTokens: 2000}
persona: {voice: alloy, ttsSpeed: 1.0}
personas:
  - {id: host, roleMessage: "You host.", voice: verse, ttsSpeed: 1.25}
policies:
  confirmFinish: true
  onExaminerFailure: offline
  gates: {firstSpeak: 0.2, beatHold: 0.2, postSpeakBuffer: 1.0, userIdle: 1.5, userIdleTimeout: 8.0, speakGate: 0}
  silence: {enabled: true, checkInSec: 20, repeatSec: 20, timeoutSec: 5, prompt: "Take your time."}
  turnTaking: {sureDelay: 0.15, completeDelay: 0.25, minDelay: 0.5, maxDelay: 3.0}
outputValidation:
  filters:
    - {name: persona_break, enabled: true, action: replace, patterns: ["as an AI"]}
    - {name: rubric_leak, action: intercept}
    - {name: topic_containment, action: redirect}
    - {name: length, action: split, maxChars: 400}
    - {name: leading_question, action: rephrase, patterns: ["don't you think"]}
beats:
  - {atSec: 600, scope: exam, message: "Halfway.", summary: true}
nodes:
  - nodeId: practice
    kind: scaffolding
    scenario: "A warm-up."
    scenarioIntro: "A warm-up question."
    conversationPrompt: "How are you today?"
    transversalSkills: [communicates_clearly]
    draw: fixed
    fixedVariant: b
    variants:
      - id: a
        scenario: "A warm-up at a desk."
        scenarioDomain: [desk]
        scenarioIntro: "A warm-up at a desk."
        conversationPrompt: "What is on your desk?"
        followUpProbes: {communicates_clearly: ["Could you say more?"]}
        cues: {communicates_clearly: ["first of all"]}
      - {id: b, conversationPrompt: "How was your journey here?"}
    transitions:
      - {on: evidence_sufficient, to: welcome}
      - {on: followups_exhausted, to: welcome}
      - {on: time_exhausted, to: welcome}
      - {on: off_topic_limit, to: welcome}
      - {on: skipped, to: welcome}
      - {on: distress, to: welcome}
      - {on: admin_advance, to: welcome}
marking:
  markers: 2
  moderation: {tolerance: 1, settle: average, sample: {percent: 10, min: 2}}
  criteria:
    - id: rota_staffing
      title: "Staffing, in the rota part only"
      signals: [plans_staffing]
      nodes: [scenario-staff-rota]
      levels: [{name: description, marks: 1}]
`

// parityBase is the example spec with parityExtras merged in (mappings merged, lists
// appended), as the JSON value a schema validator sees.
func parityBase(t *testing.T) map[string]any {
	t.Helper()
	base := jsonInstance(t, string(exampleSrc(t))).(map[string]any)
	extras := jsonInstance(t, parityExtras).(map[string]any)
	var merge func(dst, src map[string]any)
	merge = func(dst, src map[string]any) {
		for k, v := range src {
			switch sv := v.(type) {
			case map[string]any:
				if dv, ok := dst[k].(map[string]any); ok {
					merge(dv, sv)
					continue
				}
			case []any:
				if dv, ok := dst[k].([]any); ok {
					dst[k] = append(dv, sv...)
					continue
				}
			}
			dst[k] = v
		}
	}
	merge(base, extras)
	// The practice node goes first so that it is reachable: it is the entry node.
	nodes := base["nodes"].([]any)
	base["nodes"] = append([]any{nodes[len(nodes)-1]}, nodes[:len(nodes)-1]...)
	return base
}

// schemaCase is one mutation of the base spec, derived from one keyword of the schema.
type schemaCase struct {
	name string // instance path and keyword, for failures
	rule string // schema location and keyword, without indices: the name compilerOnlyRules use
	inst any
	// mustFail: the schema must reject the case (a check of the generator itself); other
	// cases (null, a bound itself) may go either way, as long as both sides agree.
	mustFail bool
}

// schemaWalker derives cases from the schema by walking it alongside the base instance.
type schemaWalker struct {
	t     *testing.T
	root  map[string]any // the schema
	base  any            // the valid instance
	cases []schemaCase
	known map[string]bool // every schema property location: was it reached with a value?
}

// Keywords that carry no rule.
var schemaAnnotations = map[string]bool{"description": true, "default": true, "title": true, "$schema": true, "$id": true, "$defs": true}

type step = any // string key or int index

func (w *schemaWalker) add(path []step, rule, kw string, valid bool, mutate func(v any) (any, bool)) {
	inst := deepCopy(w.t, w.base)
	inst, ok := mutateAt(inst, path, mutate)
	if !ok {
		return
	}
	w.cases = append(w.cases, schemaCase{name: pathString(path) + " " + kw, rule: rule + " " + kw, inst: inst, mustFail: !valid})
}

func (w *schemaWalker) resolve(s any) any {
	for {
		m, ok := s.(map[string]any)
		if !ok {
			return s
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return s
		}
		name := strings.TrimPrefix(ref, "#/$defs/")
		if name == ref {
			w.t.Fatalf("the generator only follows #/$defs/ references, not %s", ref)
		}
		s = w.root["$defs"].(map[string]any)[name]
		for k := range m {
			if k != "$ref" && !schemaAnnotations[k] {
				w.t.Fatalf("$ref with sibling %q at %s: the generator does not merge them", k, ref)
			}
		}
	}
}

// walk applies the schema s at path, where the base instance holds v; nullable says an
// enclosing anyOf allows null there.
func (w *schemaWalker) walk(s any, path []step, rule string, v any, nullable bool) {
	s = w.resolve(s)
	if b, ok := s.(bool); ok {
		if !b {
			w.t.Fatalf("the base spec has a value at %s where the schema allows none", pathString(path))
		}
		return
	}
	m := s.(map[string]any)
	for _, kw := range slices.Sorted(maps.Keys(m)) {
		val := m[kw]
		switch kw {
		case "type":
			w.add(path, rule, "type", false, func(any) (any, bool) { return wrongType(val.(string)), true })
			if val != "null" && !nullable {
				// null reads as absent to the compiler: where the schema wants a value,
				// null must be refused like a missing one.
				w.add(path, rule, "type-null", false, func(any) (any, bool) { return nil, true })
			}
			if val == "integer" {
				w.add(path, rule, "type-fraction", false, func(any) (any, bool) { return 1.5, true })
			}
		case "const":
			w.add(path, rule, "const", false, func(any) (any, bool) { return fmt.Sprint(val) + "x", true })
		case "enum":
			w.add(path, rule, "enum", false, func(any) (any, bool) { return "not_a_value", true })
		case "minimum":
			lo := val.(float64)
			step := 0.01
			if isIntegerSchema(m) {
				step = 1
			}
			w.add(path, rule, "minimum", false, func(any) (any, bool) { return lo - step, true })
			w.add(path, rule, "minimum-boundary", true, func(any) (any, bool) { return lo, true })
		case "maximum":
			hi := val.(float64)
			w.add(path, rule, "maximum", false, func(any) (any, bool) { return hi + 0.01, true })
			w.add(path, rule, "maximum-boundary", true, func(any) (any, bool) { return hi, true })
		case "minLength":
			n := int(val.(float64))
			w.add(path, rule, "minLength", false, func(any) (any, bool) { return strings.Repeat("a", n-1), true })
		case "pattern":
			re := regexp.MustCompile(val.(string))
			for _, bad := range []string{"", " \t ", "Bad Value!", "-x", "x\ty"} {
				if !re.MatchString(bad) {
					w.add(path, rule, fmt.Sprintf("pattern %q", bad), false, func(any) (any, bool) { return bad, true })
				}
			}
		case "minItems":
			n := int(val.(float64))
			w.add(path, rule, "minItems", false, func(v any) (any, bool) { return v.([]any)[:n-1], true })
		case "maxItems":
			n := int(val.(float64))
			w.add(path, rule, "maxItems", false, func(v any) (any, bool) {
				arr, _ := v.([]any)
				out := slices.Clone(arr)
				for len(out) <= n {
					out = append(out, w.synthesizeItem(path))
				}
				return out, true
			})
		case "uniqueItems":
			w.add(path, rule, "uniqueItems", false, func(v any) (any, bool) {
				arr := v.([]any)
				if len(arr) == 0 {
					return nil, false
				}
				return append(slices.Clone(arr), arr[0]), true
			})
		case "contains":
			w.add(path, rule, "contains", false, func(v any) (any, bool) {
				var out []any
				for _, item := range v.([]any) {
					if !w.matches(val, item) {
						out = append(out, item)
					}
				}
				return out, true
			})
		case "required":
			for _, r := range val.([]any) {
				name := r.(string)
				w.add(path, rule+"."+name, "required", false, func(v any) (any, bool) {
					obj := maps.Clone(v.(map[string]any))
					delete(obj, name)
					return obj, true
				})
			}
		case "properties":
			obj, _ := v.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(val.(map[string]any))) {
				sub := val.(map[string]any)[name]
				loc := name
				if rule != "" {
					loc = rule + "." + name
				}
				if sub == false {
					w.add(path, loc, "false", false, func(v any) (any, bool) {
						o := maps.Clone(v.(map[string]any))
						o[name] = w.synthesize(w.propertySchema(path, name))
						return o, true
					})
					continue
				}
				if _, cond := w.known[loc]; !cond {
					w.known[loc] = false
				}
				if pv, ok := obj[name]; ok {
					w.known[loc] = true
					w.walk(sub, append(slices.Clone(path), name), loc, pv, false)
				}
			}
		case "additionalProperties":
			if val == false {
				w.add(path, rule, "additionalProperties", false, func(v any) (any, bool) {
					o := maps.Clone(v.(map[string]any))
					o["zzUnknownField"] = "x"
					return o, true
				})
				continue
			}
			obj := v.(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				w.walk(val, append(slices.Clone(path), k), rule+".*", obj[k], false)
			}
		case "propertyNames":
			w.add(path, rule, "propertyNames", false, func(v any) (any, bool) {
				o := maps.Clone(v.(map[string]any))
				for _, k := range slices.Sorted(maps.Keys(o)) {
					o["Bad Name"] = o[k]
					return o, true
				}
				return nil, false
			})
		case "items":
			for i, item := range v.([]any) {
				w.walk(val, append(slices.Clone(path), i), rule+"[]", item, false)
			}
		case "anyOf":
			alts := val.([]any)
			var nullable bool
			var required []string
			for _, a := range alts {
				a = w.resolve(a)
				if am, ok := a.(map[string]any); ok && am["type"] == "null" && len(am) == 1 {
					nullable = true
					continue
				}
				if w.matches(a, v) {
					w.walk(a, path, rule, v, nullableAlt(w, alts))
				}
				if am, ok := a.(map[string]any); ok {
					reqs, _ := am["required"].([]any)
					for _, r := range reqs {
						required = append(required, r.(string))
					}
				}
			}
			if nullable {
				w.add(path, rule, "null", true, func(any) (any, bool) { return nil, true })
			} else {
				// Alternatives of required fields (next or transitions): without any of them
				// no alternative holds.
				w.add(path, rule, "anyOf-none", false, func(v any) (any, bool) {
					o := maps.Clone(v.(map[string]any))
					for _, r := range required {
						delete(o, r)
					}
					return o, true
				})
			}
		case "allOf":
			for _, sub := range val.([]any) {
				w.walk(sub, path, rule, v, nullable)
			}
		case "if":
			branch := "else"
			if w.matches(val, v) {
				branch = "then"
			}
			if sub, ok := m[branch]; ok {
				w.walk(sub, path, rule, v, nullable)
			}
		case "then", "else", "$ref":
		default:
			if !schemaAnnotations[kw] {
				w.t.Fatalf("the generator does not know the keyword %q (at %s): teach it", kw, rule)
			}
		}
	}
}

// matches evaluates the few shapes of subschema the generator branches on: a const or null
// type per property with required names (if/then), required names (anyOf alternatives),
// type checks.
func (w *schemaWalker) matches(s, v any) bool {
	s = w.resolve(s)
	m, ok := s.(map[string]any)
	if !ok {
		return s == true
	}
	for kw, val := range m {
		switch kw {
		case "type":
			if !hasType(val.(string), v) {
				return false
			}
		case "const":
			if v != val {
				return false
			}
		case "required":
			obj, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, r := range val.([]any) {
				if _, ok := obj[r.(string)]; !ok {
					return false
				}
			}
		case "properties":
			obj, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for name, sub := range val.(map[string]any) {
				if pv, ok := obj[name]; ok && !w.matches(sub, pv) {
					return false
				}
			}
		case "allOf":
			for _, sub := range val.([]any) {
				if !w.matches(sub, v) {
					return false
				}
			}
		case "contains":
			arr, ok := v.([]any)
			if !ok || !slices.ContainsFunc(arr, func(item any) bool { return w.matches(val, item) }) {
				return false
			}
		case "description", "default", "items", "additionalProperties", "minItems", "maxItems", "uniqueItems", "pattern", "minimum", "maximum", "enum", "$ref", "anyOf", "minLength", "propertyNames":
			// Not branched on: the base instance satisfies them where it matters.
		default:
			w.t.Fatalf("matches does not know the keyword %q", kw)
		}
	}
	return true
}

// propertySchema is the schema of property name of the object at path, from its
// definition's main properties (for a property a conditional forbids).
func (w *schemaWalker) propertySchema(path []step, name string) any {
	s := w.schemaAt(path)
	return w.resolve(s.(map[string]any)["properties"].(map[string]any)[name])
}

// schemaAt follows properties and items from the root to the (non-null) schema at path.
func (w *schemaWalker) schemaAt(path []step) any {
	var s any = w.root
	for _, p := range path {
		s = w.nonNull(s)
		m := s.(map[string]any)
		switch p := p.(type) {
		case string:
			s = m["properties"].(map[string]any)[p]
		case int:
			s = m["items"]
		}
	}
	return w.nonNull(s)
}

func (w *schemaWalker) nonNull(s any) any {
	s = w.resolve(s)
	if m, ok := s.(map[string]any); ok {
		if alts, ok := m["anyOf"].([]any); ok {
			for _, a := range alts {
				if am, ok := w.resolve(a).(map[string]any); !ok || am["type"] != "null" {
					return w.resolve(a)
				}
			}
		}
	}
	return s
}

// synthesizeItem is a valid-looking element for the array at path.
func (w *schemaWalker) synthesizeItem(path []step) any {
	s := w.schemaAt(path).(map[string]any)
	return w.synthesize(s["items"])
}

// synthesize builds a small value of schema s: the first enum value, the minimum, "x",
// an object of its required fields.
func (w *schemaWalker) synthesize(s any) any {
	s = w.nonNull(s)
	m, _ := s.(map[string]any)
	if e, ok := m["enum"].([]any); ok {
		return e[0]
	}
	switch m["type"] {
	case "integer", "number":
		if lo, ok := m["minimum"].(float64); ok {
			return max(lo, 1)
		}
		return 1.0
	case "boolean":
		return true
	case "array":
		return []any{w.synthesize(m["items"])}
	case "object":
		o := map[string]any{}
		for _, r := range m["required"].([]any) {
			o[r.(string)] = w.synthesize(m["properties"].(map[string]any)[r.(string)])
		}
		return o
	}
	return "x"
}

func nullableAlt(w *schemaWalker, alts []any) bool {
	return slices.ContainsFunc(alts, func(a any) bool {
		am, ok := w.resolve(a).(map[string]any)
		return ok && am["type"] == "null" && len(am) == 1
	})
}

func isIntegerSchema(m map[string]any) bool { return m["type"] == "integer" }

func hasType(typ string, v any) bool {
	switch typ {
	case "null":
		return v == nil
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// wrongType is a value of another JSON type than typ.
func wrongType(typ string) any {
	switch typ {
	case "string":
		return 7.0
	case "integer", "number":
		return "7"
	case "boolean":
		return "yes"
	case "array", "object", "null":
		return "x"
	}
	return nil
}

func deepCopy(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// mutateAt replaces the value at path by f(value); f returns false to skip the case.
func mutateAt(root any, path []step, f func(any) (any, bool)) (any, bool) {
	if len(path) == 0 {
		return f(root)
	}
	switch p := path[0].(type) {
	case string:
		obj := root.(map[string]any)
		nv, ok := mutateAt(obj[p], path[1:], f)
		obj[p] = nv
		return obj, ok
	case int:
		arr := root.([]any)
		nv, ok := mutateAt(arr[p], path[1:], f)
		arr[p] = nv
		return arr, ok
	}
	return root, false
}

func pathString(path []step) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		}
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
}

// TestSchemaGeneratedParity breaks the base spec once per rule of spec/schema.json, found
// by walking the schema (required fields, types, enums, bounds, lengths, patterns, unknown
// fields, conditionals), and checks that ajv (strict, draft 2020-12) and the compiler give
// the same verdict on every case, except the compiler-only rules listed by name.
func TestSchemaGeneratedParity(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(JSONSchema(), &root); err != nil {
		t.Fatal(err)
	}
	base := parityBase(t)
	if _, diags, err := Compile("base.json", mustJSON(t, base)); err != nil {
		t.Fatalf("the parity base spec does not compile: %v\n%s", err, diags)
	}
	w := &schemaWalker{t: t, root: root, base: base, known: map[string]bool{}}
	w.walk(root, nil, "", base, false)
	for _, loc := range slices.Sorted(maps.Keys(w.known)) {
		if !w.known[loc] {
			t.Errorf("the parity base spec has no value at %s: add one to parityExtras so its rules are tested", loc)
		}
	}
	instances := []any{base}
	for _, c := range w.cases {
		instances = append(instances, c.inst)
	}
	results := runAjv(t, instances)
	if !results[0].Valid {
		t.Fatalf("ajv rejects the parity base spec: %v", results[0].Errors)
	}
	met := map[string]bool{}
	for i, c := range w.cases {
		r := results[i+1]
		if c.mustFail && r.Valid {
			t.Errorf("%s: the generator broke a rule but ajv accepts the case", c.name)
			continue
		}
		_, diags, err := Compile("case.json", mustJSON(t, c.inst))
		compilerValid := err == nil
		if compilerValid == r.Valid {
			continue
		}
		if rules := compilerOnly(diags); !compilerValid && rules != nil {
			for _, name := range rules {
				met[name] = true
			}
			continue
		}
		t.Errorf("%s [rule %q]: ajv valid=%v %v, compiler valid=%v\n%s", c.name, c.rule, r.Valid, r.Errors, compilerValid, diags)
	}
	for _, r := range compilerOnlyRules {
		if !met[r.name] {
			t.Errorf("compiler-only rule %q never disagreed with the schema: drop it from the list", r.name)
		}
	}
	t.Logf("%d generated cases", len(w.cases))
}

// compilerOnly names the compiler-only rules behind diags' errors, or nil when an error is
// not one of them.
func compilerOnly(diags Diagnostics) []string {
	var names []string
	for _, d := range diags {
		if d.Severity != Error {
			continue
		}
		i := slices.IndexFunc(compilerOnlyRules, func(r struct{ name, diagnostic string }) bool {
			return strings.Contains(d.Message, r.diagnostic)
		})
		if i < 0 {
			return nil
		}
		names = append(names, compilerOnlyRules[i].name)
	}
	return names
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

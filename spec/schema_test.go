package spec

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return testutil.CompileSchema(t, JSONSchema(), "https://examtui.dev/schema/exam-spec-v1.json")
}

// yamlInstance converts YAML to the JSON value a schema validator sees.
func yamlInstance(t *testing.T, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestSchemaAcceptsExamples(t *testing.T) {
	sch := compileSchema(t)
	for name, src := range map[string][]byte{"example": exampleSrc(t), "base": []byte(baseSpec)} {
		if err := sch.Validate(yamlInstance(t, src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSchemaRejects(t *testing.T) {
	sch := compileSchema(t)
	cases := []struct{ name, old, new string }{
		{"typo'd top-level field", "title: ", "titel: "},
		{"typo'd node field", "    maxFollowUps: 3\n", "    maxFollowUp: 3\n"},
		{"unknown kind", "kind: end", "kind: finish"},
		{"unknown reason", "on: distress", "on: distres"},
		{"wrong type", "timeBudgetSec: 300", "timeBudgetSec: five"},
		{"sttMinConfidence out of range", "sttMinConfidence: 0.5", "sttMinConfidence: 1.5"},
		{"bad signal type", "signalType: plans_staffing", "signalType: Plans-Staffing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := string(exampleSrc(t))
			if !strings.Contains(src, tc.old) {
				t.Fatalf("%q not in example", tc.old)
			}
			src = strings.Replace(src, tc.old, tc.new, 1)
			if err := sch.Validate(yamlInstance(t, []byte(src))); err == nil {
				t.Error("schema accepted it")
			}
		})
	}
}

// The hand-written schema must describe exactly the fields of the Go types.
func TestSchemaMatchesTypes(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(JSONSchema(), &root); err != nil {
		t.Fatal(err)
	}
	defs := root["$defs"].(map[string]any)
	props := func(obj map[string]any) []string {
		return slices.Sorted(maps.Keys(obj["properties"].(map[string]any)))
	}
	// Optional fields are {"anyOf": [{"type": "null"}, schema]}: the compiler reads null as
	// absent.
	unnull := func(obj map[string]any) map[string]any {
		if alts, ok := obj["anyOf"].([]any); ok && len(alts) == 2 {
			if first, _ := alts[0].(map[string]any); first["type"] == "null" {
				return alts[1].(map[string]any)
			}
		}
		return obj
	}
	sub := func(obj map[string]any, path ...string) map[string]any {
		for _, p := range path {
			obj = unnull(obj["properties"].(map[string]any)[p].(map[string]any))
		}
		return obj
	}
	node := defs["node"].(map[string]any)
	cases := []struct {
		typ    any
		schema map[string]any
	}{
		{Spec{}, root},
		{Persona{}, defs["persona"].(map[string]any)},
		{Policies{}, defs["policies"].(map[string]any)},
		{Gates{}, sub(defs["policies"].(map[string]any), "gates")},
		{EvidenceDef{}, defs["evidence"].(map[string]any)},
		{Node{}, node},
		{CompletionPolicy{}, sub(node, "completionPolicy")},
		{Transition{}, sub(node, "transitions")["items"].(map[string]any)},
		{Beat{}, defs["beat"].(map[string]any)},
		{OutputValidation{}, defs["outputValidation"].(map[string]any)},
		{FilterConfig{}, defs["filter"].(map[string]any)},
	}
	for _, c := range cases {
		typ := reflect.TypeOf(c.typ)
		info := infoOf(typ)
		want := append([]string(nil), info.names...)
		sort.Strings(want)
		if got := props(c.schema); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: schema properties %v, Go fields %v", typ.Name(), got, want)
		}
		if c.schema["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", typ.Name())
		}
	}
	// Enumerations in the schema match the Go enums.
	enum := func(obj map[string]any) []string {
		var out []string
		for _, v := range obj["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum(sub(node, "kind")); !reflect.DeepEqual(got, names(NodeKinds)) {
		t.Errorf("kind enum %v", got)
	}
	if got := enum(sub(node, "contextStrategy")); !reflect.DeepEqual(got, names(ContextStrategies)) {
		t.Errorf("contextStrategy enum %v", got)
	}
	if got := enum(sub(sub(node, "transitions")["items"].(map[string]any), "on")); !reflect.DeepEqual(got, names(Reasons)) {
		t.Errorf("reason enum %v", got)
	}
	if got := enum(sub(defs["filter"].(map[string]any), "name")); !reflect.DeepEqual(got, names(FilterNames)) {
		t.Errorf("filter enum %v", got)
	}
	var actions []string
	for _, f := range FilterNames {
		for _, a := range FilterActions(f) {
			if !slices.Contains(actions, a) {
				actions = append(actions, a)
			}
		}
	}
	sort.Strings(actions)
	got := enum(sub(defs["filter"].(map[string]any), "action"))
	sort.Strings(got)
	if !reflect.DeepEqual(got, actions) {
		t.Errorf("action enum %v, want %v", got, actions)
	}
}

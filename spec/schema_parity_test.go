package spec

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// ajvModules is where `make tools` installs ajv (npm, pinned); EXAMTUI_AJV_MODULES overrides.
func ajvModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("EXAMTUI_AJV_MODULES")
	if dir == "" {
		dir = filepath.Join("..", "bin", "npm", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, "ajv", "dist", "2020.js")); err != nil {
		t.Fatalf("ajv is needed to check the JSON Schema the way editors and CI validators read it: run `make ajv` "+
			"(npm install --prefix bin/npm ajv@8.17.1) or set EXAMTUI_AJV_MODULES: %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed to run ajv: %v", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// ajvScript compiles the schema in ajv's strict mode (draft 2020-12) and validates each
// instance, printing one result per instance as JSON.
const ajvScript = `
const Ajv2020 = require("ajv/dist/2020");
const fs = require("fs");
const [schemaPath, instancesPath] = process.argv.slice(1);
const ajv = new Ajv2020({strict: true, allErrors: true});
let validate;
try {
  validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
} catch (e) {
  console.log(JSON.stringify({compileError: e.message}));
  process.exit(0);
}
const out = JSON.parse(fs.readFileSync(instancesPath, "utf8")).map(inst => {
  const ok = validate(inst);
  return {valid: ok, errors: ok ? [] : validate.errors.map(e => e.instancePath + " " + e.message)};
});
console.log(JSON.stringify({results: out}));
`

type ajvResult struct {
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors"`
}

// runAjv validates instances against the exam JSON Schema with ajv in strict mode.
func runAjv(t *testing.T, instances []any) []ajvResult {
	t.Helper()
	modules := ajvModules(t)
	dir := t.TempDir()
	schemaPath, instPath := filepath.Join(dir, "schema.json"), filepath.Join(dir, "instances.json")
	if err := os.WriteFile(schemaPath, JSONSchema(), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(instances)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(instPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "-e", ajvScript, schemaPath, instPath)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node ajv: %v\n%s", err, out)
	}
	var res struct {
		CompileError string      `json:"compileError"`
		Results      []ajvResult `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ajv output: %v\n%s", err, out)
	}
	if res.CompileError != "" {
		t.Fatalf("the schema does not compile in ajv strict mode: %s", res.CompileError)
	}
	if len(res.Results) != len(instances) {
		t.Fatalf("ajv returned %d results for %d instances", len(res.Results), len(instances))
	}
	return res.Results
}

// jsonInstance is the YAML spec as a JSON Schema validator sees it (as yaml-language-server
// or a CI check converts it): 300.0 is the number 300, ~ is null.
func jsonInstance(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("yaml: %v\n%s", err, src)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestSchemaCompilerParity: `examtui schema` (through ajv, strict mode) and the compiler agree
// on every structural rule. Only references (names of nodes, signals, personas, scopes),
// uniqueness across items and reachability are the compiler's alone.
func TestSchemaCompilerParity(t *testing.T) {
	cases := []struct {
		name  string
		edits []string // old, new pairs applied to baseSpec
		valid bool     // what the compiler says
		// compilerOnly marks a reference, uniqueness or reachability rule: the schema
		// accepts what the compiler rejects.
		compilerOnly bool
	}{
		{"base spec", nil, true, false},
		{"integral float budget", []string{"    next: bye\n", "    next: bye\n    timeBudgetSec: 300.0\n"}, true, false},
		{"fractional budget", []string{"    next: bye\n", "    next: bye\n    timeBudgetSec: 300.5\n"}, false, false},
		{"negative budget", []string{"    next: bye\n", "    next: bye\n    timeBudgetSec: -1\n"}, false, false},
		{"null scenarioIntro", []string{"    scenario: S\n", "    scenario: S\n    scenarioIntro:\n"}, true, false},
		{"null voice", []string{`roleMessage: "You examine."}`, `roleMessage: "You examine.", voice: ~}`}, true, false},
		{"null policies", []string{"nodes:\n", "policies: ~\nnodes:\n"}, true, false},
		{"null gate", []string{"nodes:\n", "policies: {gates: {userIdle: ~}}\nnodes:\n"}, true, false},
		{"null requiredEvidenceCount", []string{"    next: bye\n", "    next: bye\n    completionPolicy: {requiredEvidenceCount: ~}\n"}, true, false},
		{"null next on end node", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n    next: ~\n"}, true, false},
		{"empty transitions on end node", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n    transitions: []\n"}, true, false},
		{"empty scenario on scaffolding", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n    scenario: \"\"\n"}, true, false},
		{"empty scenario", []string{"scenario: S", `scenario: ""`}, false, false},
		{"blank scenario", []string{"scenario: S", `scenario: "   "`}, false, false},
		{"empty conversationPrompt", []string{"conversationPrompt: Q?", `conversationPrompt: ""`}, false, false},
		{"empty next", []string{"next: bye", `next: ""`}, false, false},
		{"empty next on end node", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n    next: \"\"\n"}, false, false},
		{"next on end node", []string{"    conversationPrompt: Bye\n", "    conversationPrompt: Bye\n    next: start\n"}, false, false},
		{"no next, no transitions", []string{"    next: bye\n", ""}, false, false},
		{"null next", []string{"next: bye", "next: ~"}, false, false},
		{"empty evidenceSignals on assessment", []string{"evidenceSignals: [sig_a]", "evidenceSignals: []"}, false, false},
		{"blank title", []string{"title: T", `title: "   "`}, false, false},
		{"empty title", []string{"title: T", `title: ""`}, false, false},
		{"null title", []string{"title: T", "title: ~"}, false, false},
		{"blank roleMessage", []string{`roleMessage: "You examine."`, `roleMessage: " "`}, false, false},
		{"blank signal description", []string{`description: "Does A"`, `description: "  "`}, false, false},
		{"blank level", []string{"levels: [l1]", `levels: [" "]`}, false, false},
		{"ttsSpeed zero", []string{`roleMessage: "You examine."}`, `roleMessage: "You examine.", ttsSpeed: 0}`}, false, false},
		{"ttsSpeed in range", []string{`roleMessage: "You examine."}`, `roleMessage: "You examine.", ttsSpeed: 1.5}`}, true, false},
		{"voice not a string", []string{`roleMessage: "You examine."}`, `roleMessage: "You examine.", voice: 3}`}, false, false},
		{"empty contextStrategy", []string{"    next: bye\n", "    next: bye\n    contextStrategy: \"\"\n"}, false, false},
		{"empty language", []string{"title: T\n", "title: T\nlanguage: \"\"\n"}, false, false},
		{"unknown kind", []string{"kind: end", "kind: finish"}, false, false},
		{"unknown field", []string{"title: T\n", "title: T\ntitel: X\n"}, false, false},
		{"empty filter action", []string{"nodes:\n", "outputValidation: {filters: [{name: length, action: \"\"}]}\nnodes:\n"}, false, false},
		{"action of another filter", []string{"nodes:\n", "outputValidation: {filters: [{name: length, action: rephrase}]}\nnodes:\n"}, false, false},
		{"maxChars on persona_break", []string{"nodes:\n", "outputValidation: {filters: [{name: persona_break, maxChars: 10}]}\nnodes:\n"}, false, false},
		{"patterns on rubric_leak", []string{"nodes:\n", "outputValidation: {filters: [{name: rubric_leak, patterns: [x]}]}\nnodes:\n"}, false, false},
		{"length filter", []string{"nodes:\n", "outputValidation: {filters: [{name: length, action: split, maxChars: 300}]}\nnodes:\n"}, true, false},
		{"transitions cover every reason", []string{"    next: bye\n", "    transitions:\n" + everyReason("bye")}, true, false},
		{"transitions miss a reason", []string{"    next: bye\n", "    transitions:\n" + strings.Replace(everyReason("bye"), "      - {on: distress, to: bye}\n", "", 1)}, false, false},
		{"blank beat message", []string{"nodes:\n", "beats: [{atSec: 10, message: \" \", scope: exam}]\nnodes:\n"}, false, false},
		// Found by TestSchemaGeneratedParity: the compiler read these as absent or as 0.
		{"beat without atSec", []string{"nodes:\n", "beats: [{message: m, scope: exam}]\nnodes:\n"}, false, false},
		{"beat with null atSec", []string{"nodes:\n", "beats: [{atSec: ~, message: m, scope: exam}]\nnodes:\n"}, false, false},
		{"empty silence prompt", []string{"nodes:\n", "policies: {silence: {prompt: \"\"}}\nnodes:\n"}, false, false},
		{"blank silence prompt", []string{"nodes:\n", "policies: {silence: {prompt: \"  \"}}\nnodes:\n"}, false, false},
		{"null silence prompt", []string{"nodes:\n", "policies: {silence: {prompt: ~}}\nnodes:\n"}, true, false},
		{"null list item", []string{"    next: bye\n", "    next: bye\n    scenarioDomain: [rooms, ~]\n"}, false, false},
		// The compiler's alone: references, uniqueness across items, reachability.
		{"next names an unknown node", []string{"next: bye", "next: byee"}, false, true},
		{"undefined signal", []string{"[sig_a]", "[sig_c]"}, false, true},
		{"duplicate nodeId", []string{"nodeId: bye", "nodeId: start"}, false, true},
		{"unknown persona", []string{"    next: bye\n", "    next: bye\n    persona: nobody\n"}, false, true},
		// ... and rules across fields (docs/exam-format.md, "What only examtui check checks").
		{"action allowed and forbidden", []string{"    next: bye\n", "    next: bye\n    allowedActions: [give_hints]\n    forbiddenActions: [give_hints]\n"}, false, true},
		{"wrapup on a beat that is not the last", []string{"nodes:\n", "beats: [{atSec: 10, message: m, scope: exam, wrapup: true}, {atSec: 20, message: n, scope: exam}]\nnodes:\n"}, false, true},
		{"check-in time 0 while enabled", []string{"nodes:\n", "policies: {silence: {checkInSec: 0}}\nnodes:\n"}, false, true},
		{"check-in time 0 while disabled", []string{"nodes:\n", "policies: {silence: {enabled: false, checkInSec: 0}}\nnodes:\n"}, true, false},
		{"turn-taking delays out of order", []string{"nodes:\n", "policies: {turnTaking: {minDelay: 2, maxDelay: 1}}\nnodes:\n"}, false, true},
		{"beat scope names no node", []string{"nodes:\n", "beats: [{atSec: 10, message: m, scope: nowhere}]\nnodes:\n"}, false, true},
	}
	var instances []any
	for _, tc := range cases {
		instances = append(instances, jsonInstance(t, applyEdits(t, tc.edits)))
	}
	results := runAjv(t, instances)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := applyEdits(t, tc.edits)
			_, diags, err := Compile("t.yaml", []byte(src))
			if got := err == nil; got != tc.valid {
				t.Errorf("compiler valid = %v, want %v\n%s", got, tc.valid, diags)
			}
			wantSchema := tc.valid || tc.compilerOnly
			if r := results[i]; r.Valid != wantSchema {
				t.Errorf("schema valid = %v, want %v (compiler: %s)\najv: %v", r.Valid, wantSchema, diags, r.Errors)
			}
		})
	}
}

func applyEdits(t *testing.T, edits []string) string {
	t.Helper()
	src := baseSpec
	for j := 0; j+1 < len(edits); j += 2 {
		if !strings.Contains(src, edits[j]) {
			t.Fatalf("%q not in the base spec", edits[j])
		}
		src = strings.Replace(src, edits[j], edits[j+1], 1)
	}
	return src
}

// everyReason is a transitions list with one entry per reason.
func everyReason(to string) string {
	var b strings.Builder
	for _, r := range Reasons {
		b.WriteString("      - {on: " + string(r) + ", to: " + to + "}\n")
	}
	return b.String()
}

// TestSchemaStrictAjvAcceptsExamples: the shipped example and the base spec validate in ajv.
func TestSchemaStrictAjvAcceptsExamples(t *testing.T) {
	res := runAjv(t, []any{jsonInstance(t, string(exampleSrc(t))), jsonInstance(t, baseSpec)})
	for i, r := range res {
		if !r.Valid {
			t.Errorf("instance %d rejected: %v", i, r.Errors)
		}
	}
}

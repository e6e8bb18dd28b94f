// Package headless runs candidate scripts: it drives an exam without a person, on a virtual
// clock, with the offline (or an LLM) examiner, and checks the script's expectations exactly.
// `examtui test` is its command line.
//
// The format is docs/testing.md's candidate scripts, plus three additions for testing timers
// and the examiner's controls:
//
//	turns:
//	  - wait: 30            # seconds pass with no candidate turn (warnings, budgets, beats)
//	  - control: pause      # an examiner control: pause | resume | skip | advance | end
//	  - admin: {mode: queued, text: "…", sender: dr-lee}   # sender is optional
//	expect:
//	  state: expired        # the final exam state, exactly
//
// Each spoken turn takes 2 s of virtual "thinking" plus its speaking time (2.5 words a
// second); time advances in one-second ticks so everything time-driven happens when due.
// A say turn with confidence arrives as a mic turn with that STT confidence.
package headless

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// Script is a candidate script (docs/testing.md).
type Script struct {
	Spec     string     `yaml:"spec"`
	Examiner string     `yaml:"examiner"`
	Turns    []TurnStep `yaml:"turns"`
	Expect   Expect     `yaml:"expect"`

	// Start pins the virtual clock's start (RFC 3339, e.g. 2026-01-05T09:00:00Z) so a run's
	// timestamps are the same every time; without it the clock starts at the real time of
	// the run.
	Start string `yaml:"start"`

	// Variants pins the variant of a node by node id ({nodeId: variantId}), whatever its
	// draw, so a script meets the question it was written for (docs/testing.md).
	Variants map[string]string `yaml:"variants"`

	name     string // as given, for messages
	specPath string // resolved against the script's directory
	fsys     fs.FS  // nil: the operating system's files
	file     *ast.File

	startAt time.Time // Start parsed; zero when not pinned
}

// TurnStep is one step of a script. Exactly one of Say, Interrupt, Silence, Wait, Admin and
// Control is set.
type TurnStep struct {
	// Say is the candidate's line; it may hold pauses: "Because [pause 2s] most guests…".
	Say *string `yaml:"say"`
	// Interrupt is a line the candidate says over the examiner's next reply (barge-in). On the
	// virtual clock it is an ordinary turn.
	Interrupt *string `yaml:"interrupt"`
	// CutOff says the script expects the examiner to start speaking during a pause of this
	// say line; otherwise a room run reports such a cut-off as a failure.
	CutOff     bool       `yaml:"cutOff"`
	Confidence *float64   `yaml:"confidence"` // STT confidence for a say turn (0..1)
	Silence    *float64   `yaml:"silence"`    // seconds of candidate silence, then a silent turn
	Wait       *float64   `yaml:"wait"`       // seconds that pass with no turn (timers, beats)
	Admin      *AdminStep `yaml:"admin"`
	Control    *string    `yaml:"control"` // pause | resume | skip | advance | end
}

// HeardConfidence is the confidence a voice path hands the controller for this step's line:
// what the recogniser heard, capped by the step's confidence (a script's confidence says the
// line was heard with at most that much). It is the one rule for every path that speaks the
// script (`examtui test --audio` on the virtual clock, a spoken candidate in a room), so a
// low-confidence step meets the same confidence gate however it is heard.
func (t TurnStep) HeardConfidence(heard float64) float64 {
	if t.Confidence == nil {
		return heard
	}
	return min(heard, *t.Confidence)
}

// AdminStep is an examiner's instruction in a script.
type AdminStep struct {
	Mode   string `yaml:"mode"`
	Text   string `yaml:"text"`
	Sender string `yaml:"sender"`
}

// Kind names the step.
func (t TurnStep) Kind() string {
	switch {
	case t.Say != nil:
		return "say"
	case t.Interrupt != nil:
		return "interrupt"
	case t.Silence != nil:
		return "silence"
	case t.Wait != nil:
		return "wait"
	case t.Admin != nil:
		return "admin"
	case t.Control != nil:
		return "control"
	}
	return ""
}

// Expect holds a script's expectations. Absent fields are not checked; every count is exact.
type Expect struct {
	Completed        *bool          `yaml:"completed"`
	State            *string        `yaml:"state"`
	Visits           *[]string      `yaml:"visits"`
	Evidence         map[string]int `yaml:"evidence"`
	Guardrails       map[string]int `yaml:"guardrails"`
	MaxTurnLatencyMs *float64       `yaml:"maxTurnLatencyMs"`
	Commands         map[string]int `yaml:"commands"`
	Events           map[string]int `yaml:"events"`
	// Decisions is the controller's decision on each turn, in order (script_decisions.go).
	Decisions *[]string `yaml:"decisions"`
	// Variants is the variant each listed node got when it was last entered.
	Variants map[string]string `yaml:"variants"`
}

// ControllerOptions are the controller options the script itself asks for (its variant
// pins): every path that plays a script passes them on, so it meets the same questions.
func (s *Script) ControllerOptions() []runtime.Option {
	if len(s.Variants) == 0 {
		return nil
	}
	return []runtime.Option{runtime.WithVariantPins(s.Variants)}
}

// Name returns the script's name as it was loaded.
func (s *Script) Name() string { return s.name }

// StartAt is the start the script pins (its start: field), or the zero time.
func (s *Script) StartAt() time.Time { return s.startAt }

// SpecPath returns the spec path resolved against the script's directory.
func (s *Script) SpecPath() string { return s.specPath }

// LoadScript reads and validates the script at path; a relative spec path is relative to it,
// an absolute one is used as written.
func LoadScript(p string) (*Script, error) {
	src, err := spec.ReadSourceFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrScript, err)
	}
	s, err := ParseScript(p, src)
	if err != nil {
		return nil, err
	}
	s.specPath = s.Spec
	if !filepath.IsAbs(s.Spec) {
		s.specPath = filepath.Join(filepath.Dir(p), s.Spec)
	}
	s.useDemo() // script_demo.go
	return s, nil
}

// LoadScriptFS reads a script from fsys (e.g. examples.FS); its spec is read from fsys too.
func LoadScriptFS(fsys fs.FS, name string) (*Script, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrScript, err)
	}
	s, err := ParseScript(name, src)
	if err != nil {
		return nil, err
	}
	s.fsys = fsys
	s.specPath = path.Join(path.Dir(name), s.Spec)
	return s, nil
}

// MaxScriptValues bounds a script's size in values (every key, item and scalar): the parser
// that gives scripts their positions costs about 3 KB per value, and a 3-hour rehearsal is well
// under 2,000.
const MaxScriptValues = 10000

// ParseScript decodes and validates a script. Every problem is reported with name:line:col.
// The spec path stays as written (relative to the current directory).
func ParseScript(name string, src []byte) (*Script, error) {
	// The shape first: goccy/go-yaml's cost grows with the square of the nesting.
	if d := spec.CheckShape(name, src, MaxScriptValues); d != nil {
		return nil, fmt.Errorf("%w: %s", ErrScript, d)
	}
	s := &Script{name: name}
	if err := yaml.UnmarshalWithOptions(src, s, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrScript, positioned(name, err))
	}
	s.name = name // an empty document decodes as a zero Script, name included
	file, err := parser.ParseBytes(src, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrScript, positioned(name, err))
	}
	s.file = file
	s.specPath = s.Spec
	if s.Examiner == "" {
		s.Examiner = "offline"
	}
	if probs := s.validate(); len(probs) > 0 {
		return nil, fmt.Errorf("%w:\n  %s", ErrScript, strings.Join(probs, "\n  "))
	}
	return s, nil
}

// positioned renders a go-yaml error as name:line:col: message, an unknown key with the
// closest key a script has (scriptKeyHint).
func positioned(name string, err error) string {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		p := ye.GetToken().Position
		return fmt.Sprintf("%s:%d:%d: %s", name, p.Line, p.Column, scriptKeyHint(ye.GetMessage()))
	}
	return fmt.Sprintf("%s: %v", name, err)
}

var unknownKey = regexp.MustCompile(`^unknown field "([^"]*)"`)

// scriptKeyHint adds to go-yaml's `unknown field "sya"` the closest of a script's keys
// (spec.Suggest, the one "did you mean" of examtui), else where the keys are listed.
func scriptKeyHint(msg string) string {
	m := unknownKey.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	if s := spec.Suggest(m[1], scriptKeys); s != "" {
		return msg + ": did you mean " + s + "?"
	}
	return msg + ": known keys are in docs/testing.md (`examtui test --help`)"
}

// scriptKeys are every key a script may hold, at any level, read from the types' yaml tags.
var scriptKeys = func() []string {
	seen := map[string]bool{}
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "" || tag == "-" || seen[tag] {
				continue
			}
			seen[tag] = true
			keys = append(keys, tag)
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Script]())
	return keys
}()

// pos returns name:line:col of the node at a YAML path, or name alone.
func (s *Script) pos(yamlPath string) string {
	if s.file != nil {
		if p, err := yaml.PathString(yamlPath); err == nil {
			if n, err := p.FilterFile(s.file); err == nil && n != nil && n.GetToken() != nil {
				t := n.GetToken().Position
				return fmt.Sprintf("%s:%d:%d", s.name, t.Line, t.Column)
			}
		}
	}
	return s.name
}

func (s *Script) validate() []string {
	var probs []string
	add := func(at, format string, args ...any) {
		probs = append(probs, at+": "+fmt.Sprintf(format, args...))
	}
	if s.Spec == "" {
		add(s.name, "spec is required (a path relative to the script)")
	}
	if s.Examiner != "offline" && s.Examiner != "llm" {
		add(s.pos("$.examiner"), "examiner %q: want offline or llm", s.Examiner)
	}
	if s.Start != "" {
		t, err := time.Parse(time.RFC3339Nano, s.Start)
		if err != nil {
			add(s.pos("$.start"), "start %q: want an RFC 3339 time such as 2026-01-05T09:00:00Z", s.Start)
		}
		s.startAt = t.UTC()
	}
	if len(s.Turns) == 0 {
		add(s.pos("$.turns"), "turns: at least one turn is required")
	}
	for i, t := range s.Turns {
		at := s.pos(fmt.Sprintf("$.turns[%d]", i))
		set := 0
		for _, b := range []bool{t.Say != nil, t.Interrupt != nil, t.Silence != nil, t.Wait != nil, t.Admin != nil, t.Control != nil} {
			if b {
				set++
			}
		}
		if set != 1 {
			add(at, "turn %d: exactly one of say, interrupt, silence, wait, admin, control is required (found %d)", i+1, set)
			continue
		}
		for _, line := range []*string{t.Say, t.Interrupt} {
			if line == nil {
				continue
			}
			if parts, err := SplitPauses(*line); err != nil {
				add(at, "turn %d: %v", i+1, err)
			} else if len(parts) == 0 {
				add(at, "turn %d: %s needs words", i+1, t.Kind())
			}
		}
		if t.CutOff && (t.Say == nil || Pauses(*t.Say) == 0) {
			add(at, "turn %d: cutOff applies to a say line with a [pause ...] in it", i+1)
		}
		if t.Confidence != nil && (t.Say == nil || *t.Confidence < 0 || *t.Confidence > 1 || math.IsNaN(*t.Confidence)) {
			add(s.pos(fmt.Sprintf("$.turns[%d].confidence", i)), "turn %d: confidence must be 0..1 on a say turn", i+1)
		}
		for _, v := range []*float64{t.Silence, t.Wait} {
			if v != nil && (*v <= 0 || *v > 24*3600 || math.IsNaN(*v)) {
				add(at, "turn %d: %s must be a positive number of seconds", i+1, t.Kind())
			}
		}
		if t.Admin != nil {
			if _, err := runtime.ParseInstructionMode(t.Admin.Mode); err != nil {
				add(s.pos(fmt.Sprintf("$.turns[%d].admin", i)), "turn %d: admin mode %q: want immediate, queued or say", i+1, t.Admin.Mode)
			}
			if strings.TrimSpace(t.Admin.Text) == "" {
				add(s.pos(fmt.Sprintf("$.turns[%d].admin", i)), "turn %d: admin text is required", i+1)
			}
		}
		if t.Control != nil {
			if _, err := runtime.ParseControlAction(*t.Control); err != nil {
				add(s.pos(fmt.Sprintf("$.turns[%d].control", i)), "turn %d: control %q: want pause, resume, skip, advance, end or promote", i+1, *t.Control)
			}
		}
	}
	e := s.Expect
	if e.State != nil && !runtime.ExamState(*e.State).Valid() {
		add(s.pos("$.expect.state"), "expect.state %q is not an exam state", *e.State)
	}
	if e.MaxTurnLatencyMs != nil && *e.MaxTurnLatencyMs <= 0 {
		add(s.pos("$.expect.maxTurnLatencyMs"), "expect.maxTurnLatencyMs must be positive")
	}
	for _, k := range slices.Sorted(maps.Keys(e.Guardrails)) {
		if _, ok := runtime.LookupGuardrail(k); !ok {
			add(s.pos("$.expect.guardrails."+k), "expect.guardrails: unknown guardrail %q (known: %s)", k, strings.Join(runtime.GuardrailNames(), ", "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Commands)) {
		if !runtime.Command(k).Valid() {
			add(s.pos("$.expect.commands."+k), "expect.commands: unknown command %q", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Events)) {
		known := false
		for _, t := range runtime.EventTypes {
			known = known || t.String() == k
		}
		if !known {
			add(s.pos("$.expect.events."+k), "expect.events: unknown event type %q", k)
		}
	}
	for _, m := range []map[string]int{e.Evidence, e.Guardrails, e.Commands, e.Events} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if m[k] < 0 {
				add(s.name, "expect: count for %q must not be negative", k)
			}
		}
	}
	return probs
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/examtui/examtui/tui"
	"github.com/examtui/examtui/tui/controlroom"
)

// docFiles are the pages a user reads: the README and docs/.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "../../README.md")
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(p, "../../")] = string(b)
	}
	return out
}

var (
	// A command line in the docs: examtui, its words, then flags and values up to the end of
	// the code span, a comment, a pipe or another command.
	docCommand = regexp.MustCompile("(?:bin/)?examtui((?: [a-z][a-z-]*)+)([^`#|;&)\\n']*)")
	docFlag    = regexp.MustCompile(`(?:^|[\s\[(])(--[a-z][a-z0-9-]+)(?:$|[\s=,.)\]])`)
	docFormat  = regexp.MustCompile(`--format[ =]([a-z][a-z0-9|-]*)`)
)

// TestDocsNameRealFlags runs every command's --help and checks that each flag the docs write
// after `examtui <command>` is one of that command's flags, each --format value one it lists,
// and every --flag the docs name anywhere is some command's: so docs and program cannot drift
// apart again.
func TestDocsNameRealFlags(t *testing.T) {
	root := newRootCmd()
	all := map[string]bool{}
	helps := map[*cobra.Command]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out, errOut, err := runCmd(t, "", append(strings.Fields(c.CommandPath())[1:], "--help")...)
		if err != nil {
			t.Errorf("%s --help: %v\n%s", c.CommandPath(), err, errOut)
		}
		helps[c] = out
		c.Flags().VisitAll(func(f *pflag.Flag) { all["--"+f.Name] = true })
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) { all["--"+f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	all["--help"], all["--version"] = true, true

	for name, text := range docFiles(t) {
		for i, line := range strings.Split(text, "\n") {
			at := fmt.Sprintf("%s:%d", name, i+1)
			for _, m := range docCommand.FindAllStringSubmatch(line, -1) {
				words := strings.Fields(m[1])
				cmd, rest, err := root.Find(words)
				if err != nil || cmd == root && len(words) > 0 && !slices.Contains([]string{"--help"}, words[0]) {
					continue // prose ("examtui compiles it"), not a command line
				}
				_ = rest
				help := helps[cmd]
				tail, _, _ := strings.Cut(m[2], "examtui") // the next command starts there
				for _, fm := range docFlag.FindAllStringSubmatch(tail, -1) {
					if !strings.Contains(help, fm[1]+" ") && !strings.Contains(help, fm[1]+"\n") && !strings.Contains(help, fm[1]+"=") {
						t.Errorf("%s: %s: %q has no flag %s", at, strings.TrimSpace(m[0]), cmd.CommandPath(), fm[1])
					}
				}
				for _, fm := range docFormat.FindAllStringSubmatch(m[0], -1) {
					for _, f := range strings.Split(fm[1], "|") {
						if f != "" && !regexp.MustCompile(`\b`+regexp.QuoteMeta(f)+`\b`).MatchString(help) {
							t.Errorf("%s: %s: %q --help does not list the format %s", at, strings.TrimSpace(m[0]), cmd.CommandPath(), f)
						}
					}
				}
			}
			for _, span := range inlineCode(line) {
				for _, fm := range docFlag.FindAllStringSubmatch(span, -1) {
					if !all[fm[1]] && !otherTool(span) && !otherTool(line) {
						t.Errorf("%s: `%s`: no examtui command has %s", at, span, fm[1])
					}
				}
			}
		}
	}
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

func inlineCode(line string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
		out = append(out, m[1])
	}
	return out
}

// otherTool: a code span that is another program's command line (its flags are its own).
func otherTool(span string) bool {
	for _, p := range []string{"livekit-server", "lk ", "xmllint", "llama", "vllm", "vLLM", "make ", "go ", "tmux", "npm", "git ", "curl", "docker", "psql", "pg_", "python", "node ", "espeak", "ffmpeg", "chromium", "sox", "arecord", "aplay", "pipecat", "uv ", "pip ", "stress-ng"} {
		if strings.Contains(span, p) {
			return true
		}
	}
	return false
}

// TestHelpNamesEveryValue: a command whose help text lists the values of its --format or
// --stage flag lists all of them (the help once named three export formats of four, and three
// doctor stages of four).
func TestHelpNamesEveryValue(t *testing.T) {
	valueWord := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, name := range []string{"format", "stage"} {
			f := c.Flags().Lookup(name)
			if f == nil {
				continue
			}
			usage, _, _ := strings.Cut(f.Usage, "(")
			usage, _, _ = strings.Cut(usage, ";")
			if _, after, ok := strings.Cut(usage, ":"); ok {
				usage = after // "output format: text, mermaid or dot"
			}
			var values []string
			for _, v := range strings.FieldsFunc(strings.ReplaceAll(usage, " or ", ","), func(r rune) bool { return r == ',' || r == ' ' || r == '|' }) {
				if valueWord.MatchString(v) {
					values = append(values, v)
				}
			}
			if len(values) < 2 {
				continue
			}
			for _, text := range []struct{ what, s string }{{"Short", c.Short}, {"Long", c.Long}} {
				var named, missing []string
				for _, v := range values {
					if regexp.MustCompile(`\b` + regexp.QuoteMeta(v) + `\b`).MatchString(text.s) {
						named = append(named, v)
					} else {
						missing = append(missing, v)
					}
				}
				if len(named) >= 2 && len(missing) > 0 {
					t.Errorf("%s: its %s names %s of --%s but not %s", c.CommandPath(), text.what, strings.Join(named, ", "), name, strings.Join(missing, ", "))
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
}

// bindingKeys is every key bound in a key map (a struct of key.Binding fields).
func bindingKeys(km any) map[string]bool {
	out := map[string]bool{}
	v := reflect.ValueOf(km)
	for i := range v.NumField() {
		if b, ok := v.Field(i).Interface().(key.Binding); ok {
			for _, k := range b.Keys() {
				out[k] = true
			}
		}
	}
	return out
}

// docKeyNames spells a key as the key maps do: the arrows and pgdn as the docs write them.
var docKeyNames = map[string]string{"↑": "up", "↓": "down", "←": "left", "→": "right", "pgdn": "pgdown"}

// TestMonitorDocKeys checks docs/monitor.md's key table against the control room's key map,
// both ways: every key the table names is bound, every bound key is in the table.
func TestMonitorDocKeys(t *testing.T) {
	doc := docFiles(t)["docs/monitor.md"]
	_, table, ok := strings.Cut(doc, "## Keys\n")
	if !ok {
		t.Fatal("docs/monitor.md has no Keys section")
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if line != "" && !strings.HasPrefix(line, "|") {
			if len(documented) > 0 {
				break // the table's end
			}
			continue
		}
		cells := strings.Split(line, " | ")
		if len(cells) < 2 || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| key ") {
			continue
		}
		for _, k := range strings.FieldsFunc(strings.TrimPrefix(cells[0], "| "), func(r rune) bool { return r == ',' || r == ' ' }) {
			if k == "or" {
				continue
			}
			parts := []string{k}
			if k != "/" {
				parts = strings.Split(k, "/")
			}
			for _, p := range parts {
				if n, ok := docKeyNames[p]; ok {
					p = n
				}
				documented[p] = true
			}
		}
	}
	bound := bindingKeys(controlroom.DefaultKeyMap())
	for k := range documented {
		if !bound[k] {
			t.Errorf("docs/monitor.md's key table names %q; the control room binds no such key", k)
		}
	}
	for k := range bound {
		if !documented[k] {
			t.Errorf("the control room binds %q; docs/monitor.md's key table does not name it", k)
		}
	}
}

// docCtrlKey is a control or function key named in prose: ctrl+p, f1.
var docCtrlKey = regexp.MustCompile(`\b(ctrl\+[a-z]+|f[0-9]{1,2})\b`)

// TestDocsNameBoundKeys checks that every ctrl or function key docs/console.md and
// docs/monitor.md name, in tables or prose, is bound by the console's or the control room's
// key map (so the prose cannot keep a key the program dropped).
func TestDocsNameBoundKeys(t *testing.T) {
	bound := bindingKeys(tui.DefaultKeyMap())
	for k := range bindingKeys(controlroom.DefaultKeyMap()) {
		bound[k] = true
	}
	docs := docFiles(t)
	for _, page := range []string{"docs/console.md", "docs/monitor.md"} {
		for _, m := range docCtrlKey.FindAllStringSubmatch(docs[page], -1) {
			if !bound[m[1]] {
				t.Errorf("%s names %s; no key map binds it", page, m[1])
			}
		}
	}
}

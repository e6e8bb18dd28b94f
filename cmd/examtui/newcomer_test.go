package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNewcomerErrors walks the mistakes a newcomer makes in the first hour and asserts that
// every message names the cause and the next step (cliguide.Hint: a did-you-mean, a --help to
// read, a command to start, what to write), as printError prints it.
//
// The check's own diagnostics carry their hint in parentheses; every line read must have one.
func TestNewcomerErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exam := `specVersion: "1"
id: servers-move
title: "Planning a data-centre move"
persona:
  id: examiner
  roleMessage: "You are a calm, neutral examiner."
evidence:
  - signalType: names-risk
    description: "Identifies a specific risk in the plan"
    levels: [description, analysis]
nodes:
  - nodeId: plan
    kind: assessment
    scenario: "A team moves its servers over one weekend."
    conversationPrompt: "What do you think of this plan?"
    evidenceSignals: [names_risk]
    variants:
      - weekend
      - {id: night}
    next: bye
  - {nodeId: bye, kind: end, conversationPrompt: "Thank you."}
`
	hyphen := write("hyphen.yaml", exam)
	tab := write("tab.yaml", strings.Replace(exam, "\n  id: examiner", "\n\tid: examiner", 1))
	script := write("script.yaml", "spec: demo\nturns:\n  - sya: Hello\n")
	variantsExam, err := filepath.Abs("../../runtime/headless/testdata/variants-exam.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pin := write("pin.yaml", "spec: "+variantsExam+"\nvariants: {case: spaa}\nturns:\n  - say: Hello\n")

	// A port nothing listens on: bound, then closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "ws://" + l.Addr().String()
	l.Close()

	cases := []struct {
		name string
		args []string
		env  map[string]string
		want []string // in what the user reads (stdout, stderr, the printed error)
	}{
		{"mistyped command", []string{"tset"}, nil, []string{`did you mean "test"?`, "'examtui --help'"}},
		{"mistyped subcommand", []string{"sessions", "lsit"}, nil, []string{`did you mean "list"?`, "'examtui sessions --help'"}},
		{"help for a mistyped command", []string{"help", "tset"}, nil, []string{`did you mean "test"?`, "'examtui --help'"}},
		{"help for a mistyped subcommand", []string{"help", "sessions", "lsit"}, nil, []string{`did you mean "list"?`, "'examtui sessions --help'"}},
		{"subcommand of a group with no action", []string{"marks", "exprot"}, nil, []string{`did you mean "export"?`}},
		{"mistyped flag", []string{"check", "--strcit", "demo"}, nil, []string{"did you mean --strict?", "'examtui check --help'"}},
		{"mistyped global flag", []string{"check", "--data-dri", dir, "demo"}, nil, []string{"did you mean --data-dir?"}},
		{"bad flag value", []string{"run", "--mic=loud"}, nil, []string{"'examtui run --help' lists its flags"}},
		{"mistyped script key", []string{"test", script}, nil, []string{`unknown field "sya": did you mean say?`}},
		{"variant pin misspelt", []string{"test", "--no-store", pin}, nil, []string{`no variant "spaa" (did you mean spa?)`}},
		{"hyphenated signal id", []string{"check", hyphen}, nil, []string{"write names_risk", "write names_risk there too"}},
		{"tab indentation", []string{"check", tab}, nil, []string{"YAML indents with spaces"}},
		{"variant written as a string", []string{"check", hyphen}, nil, []string{"write it as a mapping, one field a line: id: weekend"}},
		{"no LiveKit server", []string{"run", "demo", "--room", "r1", "--headless"},
			map[string]string{"LIVEKIT_URL": deadURL, "LIVEKIT_API_KEY": "devkey", "LIVEKIT_API_SECRET": "secretsecretsecretsecretsecretsecret"},
			[]string{"no LiveKit server answers at " + deadURL, "start one with `bin/livekit-server --dev"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, errOut, err := runCmdContext(ctx, "", tc.args...)
			if err == nil {
				t.Fatalf("no error:\n%s%s", out, errOut)
			}
			var printed bytes.Buffer
			printError(&printed, err)
			read := out + errOut + printed.String()
			for _, w := range tc.want {
				if !strings.Contains(read, w) {
					t.Errorf("lacks %q:\n%s", w, read)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(read), "\n") {
				// Every diagnostic and error line; the summaries ("FAILED: 3 errors") count them.
				if (strings.Contains(line, "error:") || strings.Contains(line, "warning:") ||
					strings.HasPrefix(line, "examtui:") || strings.HasPrefix(line, "ERROR")) &&
					!strings.HasSuffix(line, ":") && // a heading: its problems follow, one a line
					!hasNextStep(line) {
					t.Errorf("a message without a next step: %q", line)
				}
			}
		})
	}
}

// hasNextStep reports whether msg says what to do next: a did-you-mean, a --help to read, a
// server to start, what to write, set, pass or say instead.
func hasNextStep(msg string) bool {
	msg = strings.ToLower(msg)
	for _, h := range []string{"did you mean", "--help", "start one", "write ", "set ", "pass ", "say ", "replace ", "use "} {
		if strings.Contains(msg, h) {
			return true
		}
	}
	return false
}

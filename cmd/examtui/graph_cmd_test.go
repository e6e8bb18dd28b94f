package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGraphCmd(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "spec", "examgraph", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	out := filepath.Join(t.TempDir(), "exam.dot")
	tests := []struct {
		name       string
		stdin      string
		args       []string
		code       int
		wantOut    string // exact stdout, when set
		wantErrSub string
	}{
		{name: "text default on the demo", args: []string{"graph", "demo"}, wantOut: golden("hotel-breakfast.txt")},
		{name: "mermaid", args: []string{"graph", "demo", "--format", "mermaid"}, wantOut: golden("hotel-breakfast.mmd")},
		{name: "dot from stdin", stdin: string(mustRead(t, "../../examples/hotel-breakfast.yaml")), args: []string{"graph", "-", "-f", "dot"},
			wantOut: strings.ReplaceAll(golden("hotel-breakfast.dot"), "hotel-breakfast.yaml", "<stdin>")},
		{name: "to a file", args: []string{"graph", "demo", "-f", "dot", "-o", out}, wantOut: ""},
		{name: "unknown format", args: []string{"graph", "demo", "-f", "svg"}, code: -1, wantErrSub: ""},
		{name: "invalid spec", stdin: badSpec, args: []string{"graph", "-"}, code: 1, wantErrSub: "no graph"},
		{name: "missing file", args: []string{"graph", "nope.yaml"}, code: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := runCmd(t, tc.stdin, tc.args...)
			if got := exitCode(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", got, err, tc.code, stderr)
			}
			if tc.code == 0 && stdout != tc.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.wantOut)
			}
			if tc.wantErrSub != "" && !strings.Contains(stderr, tc.wantErrSub) {
				t.Errorf("stderr %q lacks %q", stderr, tc.wantErrSub)
			}
		})
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != golden("hotel-breakfast.dot") {
		t.Errorf("-o file: %v\n%s", err, b)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

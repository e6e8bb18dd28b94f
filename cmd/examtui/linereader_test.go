package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name string
		in   string
		want []inputLine
	}{
		{"lines", "a\nb\r\nc", []inputLine{{text: "a"}, {text: "b"}, {text: "c"}}},
		{"empty lines kept", "\n\nz\n", []inputLine{{text: ""}, {text: ""}, {text: "z"}}},
		{"too long skipped, reading goes on", "a\n" + long + "\nb\n", []inputLine{{text: "a"}, {tooLong: 300}, {text: "b"}}},
		{"exactly max kept", strings.Repeat("y", 100) + "\n", []inputLine{{text: strings.Repeat("y", 100)}}},
		{"too long at EOF", long, []inputLine{{tooLong: 300}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []inputLine
			// A tiny buffer would hide isPrefix handling: use the real reader with a small max.
			if err := readLines(strings.NewReader(tt.in), 100, func(l inputLine) bool { got = append(got, l); return true }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines %+v, want %+v", len(got), got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestHeadlessLongLine: a 2 MB stdin line is rejected with a clear message and the exam goes on
// to completion with the lines after it.
func TestHeadlessLongLine(t *testing.T) {
	dir := t.TempDir()
	stdin := crashScript[0] + "\n" + strings.Repeat("a", 2<<20) + "\n" + strings.Join(crashScript[1:], "\n") + "\n"
	out, errOut, err := runCmd(t, stdin, "--data-dir", dir, "--log-file", filepath.Join(dir, "log.txt"),
		"run", "demo", "--headless", "--json", "--examiner", "offline")
	if err != nil {
		t.Fatalf("headless run: %v\nstderr:\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "input line of 2097152 bytes ignored") {
		t.Errorf("stderr lacks the rejection:\n%s", errOut)
	}
	if !strings.Contains(out, `"exam_completed"`) || !strings.Contains(out, `"completed"`) {
		t.Errorf("the exam did not complete after the long line:\n%s", out[max(0, len(out)-2000):])
	}
}

// TestExaminerIdentitiesUnique: two watch processes of one user get different identities, so
// they do not push each other out of the room.
func TestExaminerIdentitiesUnique(t *testing.T) {
	a, b := defaultExaminerIdentity(), defaultExaminerIdentity()
	if a == b || !strings.HasPrefix(a, "examiner") || !strings.HasPrefix(b, "examiner") {
		t.Errorf("identities %q and %q, want two different examiner-… names", a, b)
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

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

package testutil

import (
	"bufio"
	"os/exec"
	"testing"
)

// StartLines starts cmd with its standard output read line by line into the returned channel,
// which closes when the output ends, and kills and reaps the process when t ends. Lines are
// buffered (256); past that, unread lines are dropped rather than let the process block on a
// full pipe, since a test reads only until it has seen what it waits for.
func StartLines(t testing.TB, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	return lines
}

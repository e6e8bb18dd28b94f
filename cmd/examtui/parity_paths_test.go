package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// The parity suite's slow paths: the real binary in a terminal, and a worker job in a LiveKit
// room. Both run on the wall clock at a person's pace (each line after the previous reply).

// consolePath is `examtui run SPEC` (the console) in a real terminal (tmux), the script's
// answers typed as key presses, as TestConsoleInTmux does.
func consolePath() parityPath {
	return parityPath{name: "console", slow: true, exclude: wallClockExclusion(false), start: func(t *testing.T) func(*testing.T, *parityScript) []string {
		bin := examtuiBinary(t)
		return func(t *testing.T, ps *parityScript) []string {
			lines, _ := typedLines(ps.s, false)
			spec, err := filepath.Abs(ps.s.SpecPath())
			if err != nil {
				t.Fatal(err)
			}
			dataDir := filepath.Join(t.TempDir(), "data")
			tt, stderrPath, rcPath := startInTmux(t, bin, dataDir, "run", spec, "--examiner", "offline", "--candidate", "parity")
			tt.waitScreen("start", "answer>")
			for i, l := range lines {
				tt.typeLine(l)
				testutil.Eventually(t, 30*time.Second, func() bool {
					evs, ended := tryEvents(dataDir, "")
					return ended || turnAnswered(evs, i+1)
				}, "console answer %d stored", i+1)
			}
			waitDecisions(ps.want, func() ([]string, bool) { return tryTrace(dataDir, "") })
			_, ended := tryEvents(dataDir, "")
			tt.keys("C-c")
			if !ended { // a running exam asks before quitting
				tt.waitScreen("quit confirmation", "y")
				tt.keys("y")
			}
			waitExitOK(t, rcPath, stderrPath)
			return storedTrace(t, dataDir, "")
		}
	}}
}

// workerPath is a worker job: `examtui dispatch` of the script's spec to an `examtui worker`
// process (internal/worker) whose room bot takes the candidate's typed answers as
// exam-candidate-input packets in a real LiveKit room; the worker stores the session.
func workerPath() parityPath {
	return parityPath{name: "worker room (typed)", slow: true, exclude: wallClockExclusion(false), start: func(t *testing.T) func(*testing.T, *parityScript) []string {
		p := newPool(t)
		for _, glob := range []string{"../../examples/*.yaml", "../../runtime/headless/testdata/*.yaml"} {
			files, _ := filepath.Glob(glob)
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(src), "\nturns:") { // the specs the scripts name
					if err := os.WriteFile(filepath.Join(p.specs, filepath.Base(f)), src, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		// An exam the script leaves running keeps its job: room for every script at once.
		p.startWorker("parity", "--max-exams", "40")
		n := 0
		return func(t *testing.T, ps *parityScript) []string {
			lines, _ := typedLines(ps.s, false)
			n++
			room := fmt.Sprintf("parity-%02d", n)
			p.dispatchExam(room, strings.TrimSuffix(filepath.Base(ps.s.SpecPath()), filepath.Ext(ps.s.SpecPath())), room)
			cd := p.join(room, "cand-"+room)
			defer cd.close()
			if _, err := cd.waitEvent(0, runtime.EventSpoken, "", 60*time.Second); err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if err := cd.answer(l, 60*time.Second); err != nil {
					t.Fatal(err)
				}
				if _, ended := tryEvents(p.storeTarget(), room); ended {
					break
				}
			}
			waitDecisions(ps.want, func() ([]string, bool) { return tryTrace(p.storeTarget(), room) })
			return storedTrace(t, p.storeTarget(), room)
		}
	}}
}


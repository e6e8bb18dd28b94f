package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// TestNewcomerFirstHour is the first hour of an author new to examtui, in a real terminal at
// 80×24 and 120×40: the exam written from the docs' minimal example, checked (clean), tested
// with a candidate script, rehearsed in the console (help with ?, the transcript scrolled back
// while the exam goes on, end to follow it again), --mic without a recogniser (the console
// says why answers are typed), then the control room and the marking console on a finished
// exam, and a live supervise: the control room on a running exam, its console opened, an
// instruction sent. Screens are compared with goldens, their clocks and ids masked.
func TestNewcomerFirstHour(t *testing.T) {
	bin := examtuiBinary(t)
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) { newcomerHour(t, bin, sz.w, sz.h) })
	}
}

func newcomerHour(t *testing.T, bin string, w, h int) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	size := fmt.Sprintf("%dx%d", w, h)
	golden := func(name, screen string) {
		t.Helper()
		testutil.Golden(t, filepath.Join("testdata", "newcomer", name+"_"+size+".golden"), []byte(maskScreen(screen)))
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "EXAMTUI_DATA_DIR="+dataDir)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("examtui %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// The exam, copied from the docs.
	doc, err := os.ReadFile("../../docs/exam-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "## A minimal exam\n\n```yaml\n")
	exam, _, _ := strings.Cut(rest, "```")
	if err := os.WriteFile(filepath.Join(dir, "servers-move.yaml"), []byte(exam), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run("check", "--strict", "servers-move.yaml"); !strings.Contains(out, "ok:") || strings.Contains(out, "warning") {
		t.Fatalf("the docs' exam does not check clean:\n%s", out)
	}
	script := "spec: servers-move.yaml\nturns:\n  - say: \"The biggest risk is losing data, because nothing has been tested.\"\n" +
		"expect:\n  completed: true\n  evidence: {names_risk: 1}\n"
	if err := os.WriteFile(filepath.Join(dir, "rehearsal.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run("test", "rehearsal.yaml"); !strings.Contains(out, "PASS") {
		t.Fatalf("the script does not pass:\n%s", out)
	}

	// The rehearsal in the console.
	tt, _, rcPath := startInTmuxSize(t, w, h, bin, dataDir, "run", filepath.Join(dir, "servers-move.yaml"), "--examiner", "offline")
	start := tt.waitScreen("start", "Planning a data-centre", "A team plans to move its servers", "What do you think of this plan?", "answer>")
	golden("console_start", start)
	tt.keys("?")
	golden("console_help", tt.waitScreen("help", "Press ? , f1 or esc to close.", "ctrl+x", "end exam"))
	tt.keys("Escape")
	tt.waitScreen("help closed", "answer>", "Transcript")
	tt.typeLine("I would want to hear more about the team first.")
	tt.waitScreen("first answer", "answer sent", "Candidate: I would want to hear more about the team first.")
	if h <= 24 { // a transcript short enough to scroll back in
		tt.keys("PPage")
		tt.waitScreen("scrolled back", "scrolled · end: newest")
		tt.typeLine("And who is on call that weekend?")
		golden("console_scrolled", tt.waitScreen("new lines while scrolled", "new line", "↓ end: follow", "answer sent"))
		tt.keys("End")
		testutil.Eventually(t, 20*time.Second, func() bool {
			s := tt.capture()
			return !strings.Contains(s, "scrolled") && strings.Contains(s, "Candidate: And who is on call that weekend?")
		}, "end to follow the transcript again")
	}
	tt.typeLine("The biggest risk is losing data, because nothing has been tested.")
	golden("console_end", tt.waitScreen("exam over", "· completed ·", "exam completed", "answer sent"))
	tt.keys("C-c")
	if code := waitExit(t, rcPath); code != 0 {
		t.Fatalf("the console exited %d", code)
	}

	// --mic with no recogniser: the console says why answers are typed.
	tt, _, rcPath = startInTmuxSize(t, w, h, bin, dataDir, "run", filepath.Join(dir, "servers-move.yaml"), "--examiner", "offline", "--mic", "--tts", "none")
	// The recording notice comes first: the candidate agrees before the microphone opens.
	tt.waitScreen("recording notice", "Recording notice:", "Press Enter to agree")
	tt.keys("Enter")
	mic := tt.waitScreen("mic fallback", "Answers are typed: --mic found no speech recogniser", "input typed")
	if !strings.Contains(strings.Join(strings.Fields(mic), " "), "EXAMTUI_STT_BASE_URL") {
		t.Errorf("the fallback does not say what to set:\n%s", mic)
	}
	tt.keys("C-x")
	tt.waitScreen("end asked", "End the exam now?")
	tt.keys("y")
	tt.waitScreen("ended", "exam aborted")
	tt.keys("C-c")
	waitExit(t, rcPath)

	// A finished exam of the demo, in the control room and the marking console.
	run("test", "hotel-rehearsal.yaml")
	var list []struct {
		ID    string `json:"id"`
		Exam  string `json:"examId"`
		State string `json:"state"`
	}
	if err := json.Unmarshal([]byte(run("sessions", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, s := range list {
		if s.Exam == "hospitality-oral-b2" && s.State == "completed" {
			id = s.ID
		}
	}
	if id == "" {
		t.Fatalf("no completed demo session in %+v", list)
	}
	tt, _, rcPath = startInTmuxSize(t, w, h, bin, dataDir, "monitor")
	golden("monitor", tt.waitScreen("control room", "examtui monitor", "finished today"))
	tt.keys("q")
	waitExit(t, rcPath)
	tt, _, rcPath = startInTmuxSize(t, w, h, bin, dataDir, "mark", id)
	golden("mark", tt.waitScreen("marking console", "examtui mark", "Criteria", "Evidence"))
	tt.keys("q")
	waitExit(t, rcPath)

	newcomerSupervise(t, bin, dataDir, filepath.Join(dir, "servers-move.yaml"), w, h, golden)
}

// newcomerSupervise is the live supervise of the first hour: an exam runs (headless, its
// candidate typing on standard input) while the control room lists it live; the examiner
// opens its console from there, sees the candidate's answer arrive, and sends an instruction
// that the running exam receives.
func newcomerSupervise(t *testing.T, bin, dataDir, exam string, w, h int, golden func(name, screen string)) {
	t.Helper()
	p := startHeadless(t, bin, 0, "--data-dir", dataDir, "run", exam, "--headless", "--json",
		"--examiner", "offline", "--candidate", "newcomer")
	t.Cleanup(func() { p.kill(); _ = p.cmd.Wait() })
	if !p.waitEvent(0, func(ev runtime.Event) bool { return ev.Event == runtime.EventNodeEntered }, 20*time.Second) {
		t.Fatalf("the live exam never started; stderr:\n%s", p.stderr.String())
	}
	tt, _, rcPath := startInTmuxSize(t, w, h, bin, dataDir, "monitor")
	golden("monitor_live", tt.waitScreen("control room, one exam live", "LIVE (1)", "newcomer", "plan"))
	tt.keys("/")
	tt.typeLine("newcomer")
	tt.keys("Enter")
	tt.waitScreen("the live exam's console", "Transcript", "What do you think of this plan?")
	p.write("I would first ask who is on call that weekend.")
	tt.waitScreen("the answer, live", "Candidate: I would first ask who is on call")
	mark := len(p.events())
	tt.keys("C-o")
	tt.waitScreen("instruction box", "instruction")
	tt.typeLine("Ask about the rollback plan")
	sent := func(ev runtime.Event) bool {
		a, ok := decodeAs[*runtime.AdminInstructionPayload](ev)
		return ok && a.Text == "Ask about the rollback plan"
	}
	if !p.waitEvent(mark, sent, 20*time.Second) {
		t.Fatalf("the running exam never received the instruction; stderr:\n%s", p.stderr.String())
	}
	golden("supervise", tt.waitScreen("instruction in the transcript", "examiner instruction (immediate", "rollback plan", "the rollback plan?"))
	tt.keys("Escape")
	tt.waitScreen("back to the list", "LIVE (1)")
	tt.keys("q")
	if code := waitExit(t, rcPath); code != 0 {
		t.Fatalf("the control room exited %d", code)
	}
}

var (
	maskHex   = regexp.MustCompile(`\b[0-9a-f]{16}\b`)
	maskDigit = regexp.MustCompile(`[0-9]`)
	maskTemp  = regexp.MustCompile(`/tmp/\S+`)
	// Who the store says the user is: the OS account, and a console's sender with its random
	// suffix (monitor:examiner-root-76eb12).
	maskWho = regexp.MustCompile(`(marker |monitor:)[^\s)]+`)
)

// maskScreen keeps a screen's layout and words and drops what changes from run to run:
// session ids, clocks and counts of time, paths, the fill of time bars.
func maskScreen(s string) string {
	s = maskHex.ReplaceAllString(s, "<session-id-----")
	s = maskWho.ReplaceAllStringFunc(s, func(w string) string {
		pre, rest, _ := strings.Cut(w, " ")
		if rest == "" {
			pre, rest, _ = strings.Cut(w, ":")
			return pre + ":" + strings.Repeat("~", len([]rune(rest)))
		}
		return pre + " " + strings.Repeat("~", len([]rune(rest)))
	})
	// A temporary path's length changes from run to run (the test's name, a random number):
	// one token for it, whether shown whole or cut.
	s = maskTemp.ReplaceAllString(s, "<tmp>")
	s = maskDigit.ReplaceAllString(s, "0")
	return strings.ReplaceAll(s, "█", "░")
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/operator"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec/lang"
	"github.com/examtui/examtui/transport/livekit"
)

// The parity suite's slow paths: the real binary in a terminal, and a worker job in a LiveKit
// room. Both run on the wall clock at a person's pace (each line after the previous reply).

// consolePath is `examtui run SPEC` (the console) in a real terminal (tmux), as
// TestConsoleInTmux does: answers typed as key presses, instructions through the instruction
// box (ctrl+o, tab for queued), controls by their keys (ctrl+p pause and resume, ctrl+n
// advance, ctrl+s skip, ctrl+x then y to end).
func consolePath() parityPath {
	return parityPath{name: "console", slow: true, exclude: wallClockExclusion, start: func(t *testing.T) func(*testing.T, *parityScript) []string {
		bin := examtuiBinary(t)
		return func(t *testing.T, ps *parityScript) []string {
			lines, _ := typedLines(ps.s)
			spec, err := filepath.Abs(ps.s.SpecPath())
			if err != nil {
				t.Fatal(err)
			}
			dataDir := filepath.Join(t.TempDir(), "data")
			tt, stderrPath, rcPath := startInTmux(t, bin, dataDir, "run", spec, "--examiner", "offline", "--candidate", "parity")
			tt.waitScreen("start", "answer>")
			answers := 0
			for i, l := range lines {
				in, err := operator.Parse(l, operator.Answers)
				if err != nil {
					t.Fatal(err)
				}
				if in.Kind == operator.KindAnswer {
					answers++
					tt.typeLine(in.Text)
					testutil.Eventually(t, 30*time.Second, func() bool {
						evs, ended := tryEvents(dataDir, "")
						return ended || turnAnswered(evs, answers)
					}, "console answer %d stored", answers)
					continue
				}
				before := instructions(dataDir, "")
				switch {
				case in.Kind == operator.KindAdmin && in.Mode == runtime.AdminSay:
					tt.keys("C-l")
					tt.waitScreen("line to say", "say>")
					tt.typeLine(in.Text)
				case in.Kind == operator.KindAdmin:
					// The box opens in the mode last used; tab switches between the two.
					tt.keys("C-o")
					want := "[" + in.Mode.String() + "]"
					if !strings.Contains(tt.waitScreen("instruction box", "instruction>"), want) {
						tt.keys("Tab")
						tt.waitScreen("instruction mode", want)
					}
					tt.typeLine(in.Text)
				case in.Action == runtime.ControlPause || in.Action == runtime.ControlResume:
					tt.keys("C-p")
				case in.Action == runtime.ControlAdvance:
					tt.keys("C-n")
				case in.Action == runtime.ControlSkip:
					tt.keys("C-s")
				case in.Action == runtime.ControlEnd:
					tt.keys("C-x")
					tt.waitScreen("end asks", "End the exam now?")
					tt.keys("y")
				default:
					t.Fatalf("step %d: the console has no key for %q", i+1, l)
				}
				// Instructions and controls are both stored as admin_instruction.
				testutil.Eventually(t, 30*time.Second, func() bool { return instructions(dataDir, "") > before }, "console step %d (%s) stored", i+1, l)
			}
			waitDecisions(ps.want, func() ([]string, bool) { return tryTrace(dataDir, "") })
			_, ended := tryEvents(dataDir, "")
			tt.keys("C-c")
			if !ended { // a running exam asks before quitting
				tt.waitScreen("quit confirmation", "Quit while the exam is running?")
				tt.keys("y")
			}
			waitExitOK(t, rcPath, stderrPath)
			return storedTrace(t, dataDir, "")
		}
	}}
}

// instructions counts the admin_instruction events stored for a candidate's session ("": the
// only one).
func instructions(target, candidate string) int {
	evs, _ := tryEvents(target, candidate)
	n := 0
	for _, ev := range evs {
		if ev.Event == runtime.EventAdminInstruction {
			n++
		}
	}
	return n
}

// workerPath is a worker job: `examtui dispatch` of the script's spec to an `examtui worker`
// process (cmd/examtui/internal/worker) whose room bot takes the candidate's typed answers as
// exam-candidate-input packets in a real LiveKit room; the worker stores the session.
func workerPath() parityPath {
	return parityPath{name: "worker room (typed)", slow: true, exclude: wallClockExclusion, start: func(t *testing.T) func(*testing.T, *parityScript) []string {
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
			lines, _ := typedLines(ps.s)
			n++
			room := fmt.Sprintf("parity-%02d", n)
			p.dispatchExam(room, strings.TrimSuffix(filepath.Base(ps.s.SpecPath()), filepath.Ext(ps.s.SpecPath())), room)
			cd := p.join(room, "cand-"+room)
			defer cd.close()
			if _, err := cd.waitEvent(0, runtime.EventSpoken, "", 60*time.Second); err != nil {
				t.Fatal(err)
			}
			var exr *livekit.Client // the examiner, for the script's instructions and controls
			for i, l := range lines {
				in, err := operator.Parse(l, operator.Answers)
				if err != nil {
					t.Fatal(err)
				}
				if in.Kind == operator.KindAnswer {
					if err := cd.answer(in.Text, 60*time.Second); err != nil {
						t.Fatal(err)
					}
				} else {
					if exr == nil {
						dctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
						exr, err = livekit.Dial(dctx, p.srv.URL, p.srv.RoomToken(room, "examiner-"+room, livekit.RoleExaminer))
						cancel()
						if err != nil {
							t.Fatalf("examiner %s: %v", room, err)
						}
						defer exr.Close()
					}
					before := instructions(p.storeTarget(), room)
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
					if in.Kind == operator.KindAdmin {
						err = exr.SendAdmin(ctx, in.Mode, in.Text)
					} else {
						err = exr.SendControl(ctx, in.Action)
					}
					cancel()
					if err != nil {
						t.Fatalf("step %d (%s): %v", i+1, l, err)
					}
					// Instructions are not the candidate's to see: the store says it arrived.
					testutil.Eventually(t, 30*time.Second, func() bool { return instructions(p.storeTarget(), room) > before },
						"worker step %d (%s) stored", i+1, l)
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

// audioPath is `examtui test --audio`: each say step synthesised by espeak-ng and heard
// through the real voice path (VAD, endpointing, pocketsphinx on the script's turns), still on
// the virtual clock, so waits, silences and confidences play as in the reference.
func audioPath() parityPath {
	return parityPath{name: "test --audio", slow: true, exclude: func(ps *parityScript) string {
		// pocketsphinx hears English only; the other languages' voice path is an OpenAI-compatible
		// recogniser's (TestTestCommandAudioFrench).
		if e, err := ps.s.CompileSpec(); err == nil && lang.Base(e.Language) != "en" {
			return "pocketsphinx recognises English only"
		}
		return ""
	}, start: func(t *testing.T) func(*testing.T, *parityScript) []string {
		t.Setenv("OPENAI_BASE_URL", "")
		t.Setenv("OPENAI_API_KEY", "")
		return func(t *testing.T, ps *parityScript) []string {
			dir := t.TempDir()
			out, errOut, err := runCmd(t, "", "--data-dir", dir, "--log-file", filepath.Join(dir, "log.txt"), "test", "--audio", "--audio-stt", "sphinx", ps.path)
			if code := exitCode(err); code != 0 && code != 1 {
				t.Fatalf("examtui test --audio %s: %v\n%s%s", ps.name, err, out, errOut)
			}
			return storedTrace(t, dir, "")
		}
	}}
}

// roomWallLimit is the most wall-clock waiting (waits and silences) a room run of a script
// may take: beyond it the script is left to the virtual-clock paths.
const roomWallLimit = 10 * time.Second

// The room paths run at speech pace (the candidate waits for each reply's audio to end: about
// 3–10 s a turn), so they take the scripts whose decisions the other paths' scripts do not
// reach through a room: the examiner participant's instructions and controls (admin.yaml),
// the recogniser's confidence (low-confidence.yaml), a refused command then evidence
// (skip-refused.yaml); the voice path the rehearsal (every node, a repeat) and the
// confidence gate.
var (
	roomTypedScripts = []string{"admin.yaml", "low-confidence.yaml", "skip-refused.yaml"}
	roomVoiceScripts = []string{"hotel-rehearsal.yaml", "low-confidence.yaml"}
)

// roomPath is `examtui test --room-url`: the exam bot (livekit.Bot with its room voice, on the
// wall clock; the worker path covers cmd/examtui/internal/app's room bot) and
// a simulated candidate meet in a fresh room of a real LiveKit server (cmd/examtui/internal/roomcheck);
// the candidate types (exam-candidate-input packets, with the step's confidence) or, spoken,
// is synthesised by espeak-ng and heard by the bot through pocketsphinx. An examiner
// participant sends the script's instructions and controls.
func roomPath(spoken bool) parityPath {
	name, split := "room (typed)", roomTypedScripts
	if spoken {
		name, split = "room (voice)", roomVoiceScripts
	}
	return parityPath{name: name, slow: true,
		exclude: func(ps *parityScript) string {
			if !slices.Contains(split, filepath.Base(ps.name)) {
				return "a room runs at speech pace (a whole suite takes ~8 min here); the split runs " + strings.Join(split, ", ")
			}
			var wall float64
			for _, st := range ps.s.Turns {
				for _, d := range []*float64{st.Wait, st.Silence} {
					if d != nil {
						wall += *d
					}
				}
			}
			if d := time.Duration(wall * float64(time.Second)); d > roomWallLimit {
				return fmt.Sprintf("its waits and silences take %s on the wall clock (more than %s)", d, roomWallLimit)
			}
			return ""
		},
		start: func(t *testing.T) func(*testing.T, *parityScript) []string {
			srv := lktest.Start(t)
			t.Setenv("OPENAI_BASE_URL", "")
			t.Setenv("OPENAI_API_KEY", "")
			return func(t *testing.T, ps *parityScript) []string {
				dir := t.TempDir()
				args := []string{"--data-dir", dir, "--log-file", filepath.Join(dir, "log.txt"), "test", "--room-url", srv.URL,
					"--api-key", srv.APIKey, "--api-secret", srv.Secret}
				if spoken {
					args = append(args, "--audio", "--audio-stt", "sphinx")
				}
				out, errOut, err := runCmd(t, "", append(args, ps.path)...)
				switch code := exitCode(err); code {
				case 0:
				case 1: // an expectation failed: the report says why (a reply timeout on a loaded machine reads here)
					t.Logf("examtui test --room-url %s:\n%s", ps.name, out)
				default:
					t.Fatalf("examtui test --room-url %s: %v\n%s%s", ps.name, err, out, errOut)
				}
				return storedTrace(t, dir, "")
			}
		}}
}

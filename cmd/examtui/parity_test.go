package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

// The parity suite: one exam, one set of decisions. Every candidate script (examples/*.yaml
// and runtime/headless/testdata/*.yaml) runs through `examtui test` on the virtual clock (the
// reference) and through every other way an exam is run; each run's stored session is read
// as runtime.DecisionTrace and compared line by line with the reference's. A difference is a
// failure that names the script, the path and the first differing decision (runtime.TraceDiff).
// docs/testing.md ("Parity: one exam, one set of decisions") says how to read one.

// parityScript is one candidate script with its reference trace.
type parityScript struct {
	name string // e.g. examples/hotel-skip.yaml
	path string
	s    *headless.Script
	want []string // the decisions of `examtui test` on the virtual clock
}

// parityPath is one way of running an exam.
type parityPath struct {
	name string
	// slow paths start the real binary, a LiveKit server or espeak-ng: skipped under -short.
	slow bool
	// exclude says why a script cannot go this way ("" when it can).
	exclude func(*parityScript) string
	// start prepares the path once (a LiveKit server, a worker) and returns how it plays one
	// script: the stored session's decision trace.
	start func(t *testing.T) func(t *testing.T, ps *parityScript) []string
}

// parityScripts loads every candidate script of the repository (a YAML file with turns; the
// others are specs) and runs each through the reference path.
func parityScripts(t *testing.T) []*parityScript {
	t.Helper()
	var out []*parityScript
	for _, cs := range runtimetest.CandidateScripts(t, "../..") {
		out = append(out, &parityScript{name: cs.Rel, path: cs.Path, s: cs.Script})
	}
	return out
}

// referenceTrace runs `examtui test SCRIPT` in-process (typed, on the virtual clock) with a
// store of its own and reads the stored session's decisions.
func referenceTrace(t *testing.T, ps *parityScript) []string {
	t.Helper()
	dir := t.TempDir()
	_, errOut, err := runCmd(t, "", "--data-dir", dir, "--log-file", filepath.Join(dir, "log.txt"), "test", ps.path)
	if code := exitCode(err); code != 0 && code != 1 { // 1: an expectation failed (wrong-expectation.yaml)
		t.Fatalf("examtui test %s: %v\n%s", ps.name, err, errOut)
	}
	return storedTrace(t, dir, "")
}

// storedTrace reads the decisions of the session stored in target whose candidate is
// candidate ("": the only session there).
func storedTrace(t *testing.T, target, candidate string) []string {
	t.Helper()
	evs := storedEventsOf(t, target, candidate)
	trace, err := runtime.DecisionTrace(evs)
	if err != nil {
		t.Fatalf("decision trace: %v", err)
	}
	return trace
}

func storedEventsOf(t *testing.T, target, candidate string) []runtime.Event {
	t.Helper()
	ctx := context.Background()
	st, err := sessions.OpenURL(ctx, target, sessions.WithRecovery(false))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found []*sessions.Session
	for _, s := range list {
		if candidate == "" || s.Candidate == candidate {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d sessions for candidate %q in %s, want 1", len(found), candidate, target)
	}
	evs, err := st.LoadEvents(ctx, found[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// typedLines is the script as lines typed at `run --headless` (internal/operator's grammar):
// answers, "/now" and "/queue" instructions, controls; the console and the worker path read
// them back with the same grammar. why says which step has no typed form on the wall clock.
func typedLines(s *headless.Script) (lines []string, why string) {
	for i, st := range s.Turns {
		switch {
		case st.Confidence != nil:
			return nil, fmt.Sprintf("step %d has an STT confidence; typed input has none", i+1)
		case st.Wait != nil:
			return nil, fmt.Sprintf("step %d waits %gs on the virtual clock (timers, beats); the wall clock would take that long and drift", i+1, *st.Wait)
		case st.Silence != nil:
			return nil, fmt.Sprintf("step %d is %gs of silence on the virtual clock; not reproducible on the wall clock", i+1, *st.Silence)
		case st.Say != nil || st.Interrupt != nil:
			line := st.Say
			if line == nil {
				line = st.Interrupt
			}
			text := headless.SpokenText(*line)
			if strings.HasPrefix(text, "/") {
				text = "/" + text
			}
			lines = append(lines, text)
		case st.Admin != nil:
			mode := "/now "
			if st.Admin.Mode == string(runtime.AdminQueued) {
				mode = "/queue "
			}
			lines = append(lines, mode+st.Admin.Text)
		case st.Control != nil:
			lines = append(lines, "/"+*st.Control)
		}
	}
	return lines, ""
}

// wallClockExclusion is why a script cannot run on a wall-clock path that types what the
// operator grammar can say.
func wallClockExclusion(ps *parityScript) string {
	_, why := typedLines(ps.s)
	return why
}

// waitDecisions waits until the stored trace holds the reference's number of decisions or
// its end (the completed line: a session counts as ended at its terminal exam_state, which may
// be committed before exam_completed), so a path whose exam does not end by itself can be
// stopped; a path that falls short is compared as it stands, and the comparison names what
// is missing.
func waitDecisions(want []string, load func() ([]string, bool)) {
	testutil.Poll(60*time.Second, func() bool {
		got, _ := load()
		return len(got) >= len(want) || len(got) > 0 && strings.HasPrefix(got[len(got)-1], "completed ")
	})
}

// tryTrace reads a stored trace without failing the test (the session may not exist yet).
func tryTrace(target, candidate string) (trace []string, ended bool) {
	evs, ended := tryEvents(target, candidate)
	trace, err := runtime.DecisionTrace(evs)
	if err != nil {
		return nil, false
	}
	return trace, ended
}

// tryEvents reads a stored session's events without failing the test.
func tryEvents(target, candidate string) (evs []runtime.Event, ended bool) {
	ctx := context.Background()
	st, err := sessions.OpenURL(ctx, target, sessions.WithRecovery(false))
	if err != nil {
		return nil, false
	}
	defer st.Close()
	list, err := st.List(ctx)
	if err != nil {
		return nil, false
	}
	for _, s := range list {
		if candidate != "" && s.Candidate != candidate {
			continue
		}
		evs, err := st.LoadEvents(ctx, s.ID)
		if err != nil {
			return nil, false
		}
		return evs, s.State.Terminal()
	}
	return nil, false
}

// turnAnswered reports whether the n-th candidate turn is stored with what the controller did
// next (the examiner's words or the end), so a path that types at a person's pace types the
// next line only then.
func turnAnswered(evs []runtime.Event, n int) bool {
	seen := 0
	for _, ev := range evs {
		switch ev.Event {
		case runtime.EventTranscriptSegment:
			if p, err := ev.Decode(); err == nil && p.(*runtime.TranscriptSegmentPayload).Speaker == runtime.SpeakerCandidate {
				seen++
			}
		case runtime.EventSpoken, runtime.EventExamCompleted:
			if seen >= n {
				return true
			}
		}
	}
	return false
}

// headlessPath is `examtui run SPEC --headless` with the script's lines on stdin
// (cmd/examtui/internal/app RunHeadless), in-process on the wall clock.
func headlessPath() parityPath {
	return parityPath{name: "run --headless", exclude: wallClockExclusion, start: func(*testing.T) func(*testing.T, *parityScript) []string {
		return func(t *testing.T, ps *parityScript) []string {
			lines, _ := typedLines(ps.s)
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			out := &firstWrite{printed: make(chan struct{})}
			var errOut bytes.Buffer
			go func() {
				done <- execRoot(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), out, &errOut, "--data-dir", dir, "--log-file", filepath.Join(dir, "log.txt"),
					"run", ps.s.SpecPath(), "--headless", "--examiner", "offline", "--candidate", "parity")
			}()
			// The store is read only once the run has opened it (its first event is printed):
			// a reader opening the file at the same moment could make the run's open busy.
			select {
			case <-out.printed:
			case err := <-done:
				t.Fatalf("run --headless ended before printing: %v\n%s", err, errOut.String())
			}
			// At the end of stdin the run waits for the exam to end; one the script leaves
			// running is interrupted once its decisions are stored.
			waitDecisions(ps.want, func() ([]string, bool) { return tryTrace(dir, "") })
			cancel()
			if err := testutil.Recv(t, done, 30*time.Second, "run --headless to end"); err != nil && exitCode(err) != 130 && exitCode(err) != 2 {
				t.Fatalf("run --headless: %v\n%s", err, errOut.String())
			}
			return storedTrace(t, dir, "")
		}
	}}
}

// firstWrite is a run's stdout that says when the first line was printed.
type firstWrite struct {
	once    sync.Once
	printed chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.printed) })
	return len(p), nil
}

// TestParity runs every candidate script through every path and compares the decisions.
func TestParity(t *testing.T) {
	scripts := parityScripts(t)
	for _, ps := range scripts {
		ps.want = referenceTrace(t, ps)
		if len(ps.want) == 0 {
			t.Fatalf("%s: the reference made no decisions", ps.name)
		}
	}
	paths := []parityPath{headlessPath(), audioPath(), consolePath(), roomPath(false), roomPath(true), workerPath()}
	type tally struct {
		scripts, decisions int
		excluded           []string
	}
	var mu sync.Mutex
	tallies := map[string]*tally{}
	for _, p := range paths {
		tl := &tally{}
		tallies[p.name] = tl
		t.Run(strings.ReplaceAll(p.name, " ", "_"), func(t *testing.T) {
			if p.slow {
				testutil.SkipIfShort(t, "the real binary, a LiveKit server or espeak-ng")
			}
			run := p.start(t)
			for _, ps := range scripts {
				why := p.exclude(ps)
				if len(ps.s.Variants) > 0 && why == "" {
					// A live exam draws its own variants; only `examtui test` and the
					// controller take a script's pins (Script.ControllerOptions).
					why = "pins variants, which these paths draw for themselves"
				}
				if why != "" {
					tl.excluded = append(tl.excluded, ps.name+": "+why)
					continue
				}
				t.Run(filepath.Base(ps.name), func(t *testing.T) {
					got := run(t, ps)
					if d := runtime.TraceDiff(ps.want, got); d != "" {
						t.Errorf("%s via %s decides differently from `examtui test`:\n%s", ps.name, p.name, d)
						return
					}
					mu.Lock()
					tl.scripts++
					tl.decisions += len(got)
					mu.Unlock()
				})
			}
		})
	}
	names := make([]string, 0, len(tallies))
	for n := range tallies {
		names = append(names, n)
	}
	sort.Strings(names)
	var summary []string
	for _, n := range names {
		tl := tallies[n]
		for _, e := range tl.excluded {
			t.Logf("excluded from %s: %s", n, e)
		}
		summary = append(summary, fmt.Sprintf("%s %d scripts / %d decisions (%d excluded)", n, tl.scripts, tl.decisions, len(tl.excluded)))
	}
	ref := 0
	for _, ps := range scripts {
		ref += len(ps.want)
	}
	t.Logf("parity: reference `examtui test` %d scripts / %d decisions; %s", len(scripts), ref, strings.Join(summary, "; "))
}

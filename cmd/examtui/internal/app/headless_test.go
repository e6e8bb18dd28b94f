package app_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// demoAnswers complete the demo exam with the offline examiner.
var demoAnswers = []string{
	"Hello, I'm Priya and I'm on the hospitality management course.",
	"We could open a second buffet line, or another way is a grab-and-go counter.",
	"Most guests at that time are business travellers who are in a hurry.",
	"I would add two extra people on each lunch shift and adjust the rota.",
	"That raises the labour cost, but the conference revenue pays for it.",
}

// TestRunHeadless drives the demo exam through RunHeadless and checks the finish of each way a
// run ends: exit status, resume hint, what reached stdout and the store.
func TestRunHeadless(t *testing.T) {
	cases := []struct {
		name     string
		lines    []string
		cancelAt string // cancel ctx once stdout holds this
		code     int    // 0: completed
		stderr   []string
		stdout   []string
		// notStdout must appear in no spoken or transcript line ("spoken … admin: TEXT").
		notStdout []string
	}{
		{name: "completed", lines: demoAnswers, stderr: []string{"completed ("}},
		{name: "ended by the operator", lines: append(demoAnswers[:1:1], "/end"), code: app.ExitEnded, stderr: []string{"ended aborted"}},
		{name: "paused at the end of input", lines: append(demoAnswers[:1:1], "/pause"), code: app.ExitInterrupted,
			stderr: []string{"end of input while the exam is paused", "interrupted: session", "--headless)"}},
		{name: "interrupted", lines: demoAnswers[:1], cancelAt: "candidate:", code: app.ExitInterrupted,
			stderr: []string{"interrupted: session", "--room r1 --headless)"}},
		{name: "refusals go on", lines: append([]string{"/bogus", "/resume", "/promote", "/queue Ask about the budget.", "/promote"}, demoAnswers...),
			stderr: []string{`unknown operator command: "/bogus"`, "/promote", "control refused", "no queued admin instruction to promote", "completed ("},
			stdout: []string{`queued promoted "Ask about the budget."`, `immediate applied "Ask about the budget."`}},
		// An instruction is guidance, never read out: one the offline examiner cannot act on is
		// shown not actionable; only /say speaks the examiner's own words.
		{name: "instructions are not read out", lines: append([]string{
			"/now The candidate looks tired, wrap up the breakfast question soon.",
			"/queue The candidate seems nervous.", "/say We will take it step by step."}, demoAnswers...),
			stderr: []string{"completed ("},
			stdout: []string{`immediate not_actionable "The candidate looks tired, wrap up the breakfast question soon." by `,
				`queued not_actionable "The candidate seems nervous." by `, `spoken               say: "We will take it step by step."`},
			notStdout: []string{`: "The candidate looks tired`, `: "The candidate seems nervous`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dir := t.TempDir()
			x := apptest.OpenExam(ctx, t, app.Options{DataDir: dir, Input: runtime.SourceTyped})
			stdinR, stdinW := io.Pipe()
			go func() {
				for _, l := range tc.lines {
					if _, err := io.WriteString(stdinW, l+"\n"); err != nil {
						return
					}
				}
				if tc.cancelAt == "" {
					stdinW.Close() // EOF; an interrupted run keeps stdin open, as a terminal does
				}
			}()
			defer stdinW.Close()
			out, errw := &testutil.SyncBuffer{}, &testutil.SyncBuffer{}
			runCtx, stopRun := context.WithCancel(ctx)
			defer stopRun()
			if tc.cancelAt != "" {
				go func() {
					for !strings.Contains(out.String(), tc.cancelAt) && ctx.Err() == nil {
						time.Sleep(10 * time.Millisecond)
					}
					stopRun()
				}()
			}
			cfg := app.HeadlessConfig{Out: out, Err: errw}
			if tc.cancelAt != "" {
				cfg.ResumeFlags = "--room r1"
			}
			err := x.RunHeadless(runCtx, stdinR, cfg)
			msg := errw.String()
			var ee *app.ExitError
			switch {
			case tc.code == 0 && err != nil:
				t.Fatalf("run: %v\nstderr:\n%s", err, msg)
			case tc.code != 0 && (!errors.As(err, &ee) || ee.Code != tc.code):
				t.Fatalf("run: %v, want exit status %d\nstderr:\n%s", err, tc.code, msg)
			}
			if ee != nil {
				msg += ee.Msg
			}
			for _, want := range tc.stderr {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr lacks %q:\n%s", want, msg)
				}
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
			for _, l := range strings.Split(out.String(), "\n") {
				for _, bad := range tc.notStdout {
					if (strings.Contains(l, " spoken ") || strings.Contains(l, " transcript_segment ")) && strings.Contains(l, bad) {
						t.Errorf("said to the candidate: %q", l)
					}
				}
			}
			// Everything stored was printed, in order, one readable line per event.
			evs, err := apptest.OpenStore(t, dir).LoadEvents(context.Background(), x.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(evs) == 0 || len(lines) != len(evs) {
				t.Fatalf("%d lines printed, %d events stored:\n%s", len(lines), len(evs), out.String())
			}
			for i, ev := range evs {
				if !strings.Contains(lines[i], " "+string(ev.Event)+" ") {
					t.Errorf("line %d %q, stored %s", i+1, lines[i], ev.Event)
				}
			}
		})
	}
}

package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
)

// TestLLMFailoverWiring: `run --examiner llm` against an endpoint that hangs. The limits from the
// environment apply, the offline examiner takes over after the configured failures, the switch is
// stored with the session and listed in its record.
func TestLLMFailoverWiring(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.Hang() }))
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv(llm.EnvFirstTokenTimeout, "300ms")
	t.Setenv(llm.EnvFailoverAfter, "2")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	x := apptest.OpenExam(ctx, t, app.Options{Examiner: app.ExaminerLLM, DataDir: dir})
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := 0; i < 2; i++ {
		if err := x.Controller.SubmitTurn(ctx, runtime.Turn{Text: "Hello, I'm Priya.", Confidence: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if wall := time.Since(start); wall > 10*time.Second {
		t.Errorf("two hung turns took %v; the first-token timeout should cut each at 300ms", wall)
	}
	if got := x.Controller.ExaminerName(); got != "offline" {
		t.Fatalf("examiner after 2 failed turns = %q, want offline", got)
	}
	id := x.SessionID
	x.Close()
	sum, err := apptest.OpenStore(t, dir).Summary(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range sum.Errors {
		if e.Code == "examiner_switched" {
			found = true
		}
	}
	if !found {
		t.Errorf("the session record lists no examiner_switched: %+v", sum.Errors)
	}
}

// TestFailoverBoundsTheWait: however an endpoint fails, the candidate waits on it at most the
// overall turn limit in all before the offline examiner takes over, and every turn whose call
// failed counts, a command's too. The limits come from the environment, as in a real run.
func TestFailoverBoundsTheWait(t *testing.T) {
	const repeat = "Sorry, could you repeat the question?"
	tests := []struct {
		name      string
		b         openaitest.Behaviour
		turns     []string
		wantTurns int // failed turns until the switch; 0: fewer than the 3 of the count
	}{
		{"hang, a command between the answers", openaitest.Hang(), []string{"Hello, I'm Priya.", repeat, "Hello again."}, 3},
		{"stall after the first token", openaitest.ToolCall(`{"spokenText":"Thank you."}`, openaitest.Streamed(16, 0), openaitest.StallAfter(2)),
			[]string{"Hello, I'm Priya.", "Hello again.", "Still here."}, 3},
		// Each attempt fails after 700 ms (within this case's first-token timeout) and is
		// retried: a turn takes well over half the limit, so three would keep the candidate
		// waiting past it.
		{"slow errors, retried", openaitest.Status(500, openaitest.Delay(700*time.Millisecond)),
			[]string{"Hello, I'm Priya.", "Hello again.", "Still here."}, 0},
	}
	const limit = 2 * time.Second
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return tt.b }))
			t.Setenv("OPENAI_BASE_URL", srv.URL())
			t.Setenv("OPENAI_API_KEY", "")
			firstToken := "300ms"
			if tt.wantTurns == 0 {
				firstToken = "1s" // the slow errors are answers, not hangs
			}
			t.Setenv(llm.EnvFirstTokenTimeout, firstToken)
			t.Setenv(llm.EnvTimeout, limit.String())
			t.Setenv(llm.EnvFailoverAfter, "3")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			x := apptest.OpenExam(ctx, t, app.Options{Examiner: app.ExaminerLLM, DataDir: t.TempDir()})
			if err := x.Start(ctx); err != nil {
				t.Fatal(err)
			}
			var waited time.Duration
			turns := 0
			for _, text := range tt.turns {
				start := time.Now()
				if err := x.Controller.SubmitTurn(ctx, runtime.Turn{Text: text, Confidence: 1}); err != nil {
					t.Fatal(err)
				}
				waited += time.Since(start)
				turns++
				if x.Controller.ExaminerName() == "offline" {
					break
				}
			}
			got := x.Controller.ExaminerName()
			if got != "offline" || (tt.wantTurns > 0 && turns != tt.wantTurns) || (tt.wantTurns == 0 && turns >= 3) {
				t.Fatalf("examiner %q after %d failed turns, want offline after %d (0: fewer than 3)", got, turns, tt.wantTurns)
			}
			// The turn limit, and the margin the controller's own turn timeout keeps past it.
			if waited > limit+time.Second {
				t.Errorf("the candidate waited %v on the failing examiner, want at most the turn limit %v", waited.Round(time.Millisecond), limit)
			}
			t.Logf("%s: switched after %d turns, %v of waiting", tt.name, turns, waited.Round(time.Millisecond))
		})
	}
}

package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/internal/app/apptest"
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

package llm_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// resumeStep is one step of TestResumedExaminerContext's exam.
type resumeStep struct {
	say    string        // a candidate turn (silent when empty and silent is set)
	silent time.Duration // a silent turn of this length
	admin  runtime.AdminMode
	text   string // the admin instruction
}

// observationArgs is a valid report_observation that keeps the exam in its node (or, done,
// lets a scaffolding node move on), saying line.
func observationArgs(line string, done bool) string {
	quality := "partial"
	if done {
		quality = "substantive"
	}
	return fmt.Sprintf(`{"signals":[],"answerQuality":%q,"needsFollowUp":false,"evidenceSufficient":%v,`+
		`"anxietyDetected":false,"distressDetected":false,"rapportMove":"acknowledgement","dialogueMove":"none","spokenText":%q}`, quality, done, line)
}

// TestResumedExaminerContext: the LLM examiner of an exam resumed from its event log is sent,
// at every later call, the messages of the same exam run without the stop, plus exactly one
// message: the documented RESUMED note with the line the candidate heard. The exam runs on the
// demo with a context budget small enough that the history is summarised across the stop,
// an immediate admin instruction and a silent turn before it and a queued instruction
// consumed after it. Every stop point is tried.
func TestResumedExaminerContext(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	steps := []resumeStep{
		{say: "My name is Ada and I manage the front desk."},
		{say: "We could run a hybrid buffet."},
		{silent: 7 * time.Second},
		{admin: runtime.AdminImmediate, text: "Ask the candidate to speak up."},
		{say: "Eggs cooked to order for business travellers."},
		{admin: runtime.AdminQueued, text: "Ask about the costs."},
		{say: "Costs would rise by about ten percent."},
		{say: "We would train two more cooks."},
		{say: "And move the coffee station next to the door."},
	}
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	// replies answers every examiner call in order: the welcome node moves on after its first
	// answer (so the stops fall before and after a node change), then every call gets its own line.
	replies := func(srv *openaitest.Server) {
		srv.Enqueue(openaitest.ToolCall(observationArgs("Thank you, Ada.", true)))
		for i := range len(steps) {
			srv.Enqueue(openaitest.ToolCall(observationArgs(fmt.Sprintf("I see. What else would you change, point %d?", i+1), false)))
		}
	}
	// run plays steps[from:to] on c, advancing clock 10 s before each.
	run := func(t *testing.T, c *runtime.Controller, clock *runtime.VirtualClock, from, to int) {
		ctx := context.Background()
		for _, st := range steps[from:to] {
			clock.Advance(10 * time.Second)
			var err error
			switch {
			case st.admin != "":
				err = c.Admin(ctx, runtime.AdminInstruction{Mode: st.admin, Text: st.text, Sender: "dr-lee"})
			default:
				d := st.silent
				if st.say != "" {
					d = 3 * time.Second
				}
				err = c.SubmitTurn(ctx, runtime.Turn{Text: st.say, Duration: d, Source: runtime.SourceTyped})
			}
			if err != nil {
				t.Fatalf("step %+v: %v", st, err)
			}
		}
	}
	budget := runtime.WithContextBudget(5, 4000)

	// The exam without a stop.
	srvA := openaitest.New(t, summaries())
	replies(srvA)
	clockA := runtime.NewVirtualClock(start)
	a, _ := startController(t, exam, newExaminer(t, srvA, fast()...), runtime.WithClock(clockA), runtime.WithSessionID("a"), budget)
	run(t, a, clockA, 0, len(steps))
	want := examinerCalls(srvA)
	// One call per step but the queued instruction: the turns and the immediate admin run.
	calls := func(steps []resumeStep) int {
		n := 0
		for _, st := range steps {
			if st.admin != runtime.AdminQueued {
				n++
			}
		}
		return n
	}
	if len(want) != calls(steps) {
		t.Fatalf("%d examiner calls for %d steps", len(want), len(steps))
	}
	if last := dump(want[len(want)-1].Messages); !strings.Contains(last, "Summary of earlier turns on this topic: Model summary") {
		t.Fatalf("the budget did not summarise the history with the model:\n%s", last)
	}

	for stop := 1; stop < len(steps); stop++ {
		t.Run(fmt.Sprintf("stop-after-step-%d", stop), func(t *testing.T) {
			srv := openaitest.New(t, summaries())
			replies(srv)
			clock := runtime.NewVirtualClock(start)
			rec := &runtime.Recorder{}
			first, err := runtime.NewController(exam, newExaminer(t, srv, fast()...), runtime.WithClock(clock),
				runtime.WithSessionID("b"), runtime.WithSink(runtime.NewFanout(rec)), budget)
			if err != nil {
				t.Fatal(err)
			}
			if err := first.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			run(t, first, clock, 0, stop)
			_ = first.Close()

			// An hour later, a new process resumes the exam from its log.
			clock.Advance(time.Hour)
			resumed, _ := startController(t, exam, newExaminer(t, srv, fast()...), runtime.WithClock(clock),
				runtime.WithResume(rec.Events()), budget)
			run(t, resumed, clock, stop, len(steps))

			got := examinerCalls(srv)
			if len(got) != len(want) {
				t.Fatalf("%d examiner calls, want %d", len(got), len(want))
			}
			before := calls(steps[:stop]) // the calls made before the stop
			for i := range want {
				msgs := got[i].Messages
				if i >= before {
					var notes int
					msgs, notes = withoutResumeNote(msgs)
					if notes != 1 {
						t.Errorf("call %d after the resume: %d RESUMED notes, want 1:\n%s", i+1, notes, dump(got[i].Messages))
					}
				}
				if dump(msgs) != dump(want[i].Messages) {
					t.Errorf("call %d (stop after step %d): messages differ from the uninterrupted exam's\nresumed:\n%s\nuninterrupted:\n%s",
						i+1, stop, dump(msgs), dump(want[i].Messages))
				}
			}
		})
	}
}

// summaries answers the summary calls with numbered summaries: a resumed controller that
// asked again instead of replaying the recorded one would send a different number.
func summaries() openaitest.Option {
	var mu sync.Mutex
	n := 0
	return openaitest.WithPlainChat(func(*openaitest.ChatRequest) openaitest.Behaviour {
		mu.Lock()
		defer mu.Unlock()
		n++
		return openaitest.Content(fmt.Sprintf("Model summary %d: the candidate proposed changes to the breakfast service.", n))
	})
}

// examinerCalls are the server's requests with tools: the examiner's turns, not its summaries.
func examinerCalls(srv *openaitest.Server) []*openaitest.ChatRequest {
	var out []*openaitest.ChatRequest
	for _, r := range srv.ChatRequests() {
		if len(r.Tools) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// withoutResumeNote drops the resume notes from msgs and counts them. The note carries the
// line the candidate heard on resuming.
func withoutResumeNote(msgs []openaitest.ChatMessage) ([]openaitest.ChatMessage, int) {
	var out []openaitest.ChatMessage
	n := 0
	for _, m := range msgs {
		if strings.HasPrefix(m.Content, "RESUMED (for you only; never read it aloud)") &&
			strings.Contains(m.Content, `heard: "Let's continue where we left off.`) {
			n++
			continue
		}
		out = append(out, m)
	}
	return out, n
}

func dump(msgs []openaitest.ChatMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "  %s: %s\n", m.Role, m.Content)
	}
	return b.String()
}

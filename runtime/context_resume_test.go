package runtime_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// TestContextStreamedReplyOrder: a reply spoken while it streams in (before its observation)
// stands after the candidate's words it answers, as one message, in the next call's context.
func TestContextStreamedReplyOrder(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", nil)
	ex := &scriptedExaminer{stream: 7}
	ex.push(thankYouAda,
		runtimetest.Args{NeedsFollowUp: true, FollowUpType: "probe", SpokenText: "Good. What would you test first?"}.String(),
		runtimetest.Args{SpokenText: "I see. Anything else?"}.String())
	h := newHarness(t, exam, ex)
	h.start()
	h.say("My name is Ada.")
	h.say("I would roll it out to one team first.")
	h.say("The backups.")
	if !slices.ContainsFunc(payloads[*runtime.SpokenPayload](h), func(p *runtime.SpokenPayload) bool { return p.Streamed }) {
		t.Fatal("no reply was streamed")
	}
	msgs := ex.reqs[2].Messages
	i := slices.IndexFunc(msgs, func(m spec.Message) bool { return m.Content == "I would roll it out to one team first." })
	if i < 0 || i+1 >= len(msgs) || msgs[i+1] != (spec.Message{Role: "assistant", Content: "Good. What would you test first?"}) {
		t.Fatalf("the streamed reply does not follow the answer it replies to:\n%s", dumpMessages(msgs))
	}
}

// thankYouAda is the scripted examiner's reply to the candidate's name: evidence enough.
var thankYouAda = runtimetest.Args{AnswerQuality: "substantive", EvidenceSufficient: true, SpokenText: "Thank you, Ada."}.String()

// nameAnswered starts exam with a scripted examiner that answers with thankYouAda, has the
// candidate say their name, and returns the examiner and the events logged so far: the log the
// resume tests cut.
func nameAnswered(t *testing.T, exam *spec.Exam) (*scriptedExaminer, []runtime.Event) {
	t.Helper()
	ex := &scriptedExaminer{}
	ex.push(thankYouAda)
	h := newHarness(t, exam, ex)
	h.start()
	h.say("My name is Ada.")
	return ex, h.rec.Events()
}

// TestResumeMidCall: a log that ends during an examiner call (the process stopped before the
// observation) resumes with the candidate's words of that turn in the context, before the
// RESUMED note, and the call's directions go to the next call, which is again the first (the
// opening direction in its status).
func TestResumeMidCall(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	ex, evs := nameAnswered(t, exam)
	cut := slices.IndexFunc(evs, func(ev runtime.Event) bool { return ev.Event == runtime.EventObservation })
	if cut < 0 || evs[cut-1].Event != runtime.EventTranscriptSegment {
		t.Fatalf("no observation right after the candidate's segment (at %d)", cut)
	}
	first := ex.reqs[0]

	ex2 := &scriptedExaminer{}
	ex2.push(thankYouAda)
	clock := runtime.NewVirtualClock(evs[cut-1].Timestamp.Add(time.Hour))
	c, _ := resumeFrom(t, exam, ex2, clock, evs[:cut])
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitTurn(t.Context(), runtime.Turn{Text: "Ada Lovelace, hospitality management.", Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	req := ex2.reqs[0]
	msgs := req.Messages
	lost := slices.IndexFunc(msgs, func(m spec.Message) bool { return m.Role == "user" && m.Content == "My name is Ada." })
	note := slices.IndexFunc(msgs, func(m spec.Message) bool { return strings.HasPrefix(m.Content, "RESUMED ") })
	if lost < 0 || note != lost+1 {
		t.Fatalf("want the lost answer then the RESUMED note:\n%s", dumpMessages(msgs))
	}
	if !slices.Equal(req.Directions, first.Directions) || len(req.Directions) == 0 {
		t.Fatalf("directions %q, want those of the lost call %q", req.Directions, first.Directions)
	}
	status := msgs[len(msgs)-2].Content
	if !strings.Contains(status, "Opening direction: ") {
		t.Fatalf("the next call is the first the examiner answers, but its status has no opening direction: %s", status)
	}
}

// TestResumeTwiceAcrossCutTransition: a log that ends between a node_exit and its
// node_entered is resumed (the next node entered an hour later), and that run's log is
// resumed again: the second resume keeps the hour off the exam clock, as the first did.
func TestResumeTwiceAcrossCutTransition(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", nil)
	_, evs := nameAnswered(t, exam)
	cut := slices.IndexFunc(evs, func(ev runtime.Event) bool { return ev.Event == runtime.EventNodeExit })
	if cut < 0 {
		t.Fatal("no node_exit")
	}
	prefix := evs[:cut+1]

	clock := runtime.NewVirtualClock(prefix[len(prefix)-1].Timestamp.Add(time.Hour))
	first, rec := resumeFrom(t, exam, newOffline(t), clock, prefix)
	if err := first.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Second)
	if err := first.SubmitTurn(t.Context(), runtime.Turn{Text: "I would test the backups first.", Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	log := append(slices.Clone(prefix), rec.Events()...)
	last := log[len(log)-1].Timestamp
	second, _ := resumeFrom(t, exam, newOffline(t), runtime.NewVirtualClock(last), log)
	want, err := runtime.ParityState(first, last)
	if err != nil {
		t.Fatal(err)
	}
	got, err := runtime.ParityState(second, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"examClock", "node.nodeClock", "context"} {
		if got[k] != want[k] {
			t.Errorf("%s differs:\nresumed twice %+v\nresumed once  %+v", k, got[k], want[k])
		}
	}
}

func dumpMessages(msgs []spec.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("  " + m.Role + ": " + m.Content + "\n")
	}
	return b.String()
}

package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// TestStageSpec: an edited spec applies from the next node entry, recorded as an event that
// carries the new compiled exam; the node being run finishes as compiled; a resumed session
// runs the version it last ran.
func TestStageSpec(t *testing.T) {
	ctx := context.Background()
	const newPrompt = "Sam says: tell me first who eats breakfast here."
	edited := runtimetest.DemoExam(t, func(s string) string {
		s = strings.Replace(s, `conversationPrompt: "Sam says: our breakfast is losing money and guests are unhappy. What would you do?"`,
			`conversationPrompt: "`+newPrompt+`"`, 1)
		// welcome (being run) would now allow no follow-up at all: it must not change mid-node.
		return strings.Replace(s, "    maxFollowUps: 1\n    timeBudgetSec: 90", "    maxFollowUps: 0\n    timeBudgetSec: 90", 1)
	})
	h := newHarness(t, runtimetest.DemoExam(t, nil), newOffline(t))
	h.start()
	c, rec := h.c, h.rec
	if err := c.RejectSpec("exam.yaml", []string{"exam.yaml:12:3: unknown field \"nodez\""}); err != nil {
		t.Fatal(err)
	}
	if err := c.StageSpec("exam.yaml", edited); err != nil {
		t.Fatal(err)
	}
	other := runtimetest.DemoExam(t, func(s string) string { return strings.Replace(s, "id: hospitality-oral-b2", "id: another-exam", 1) })
	if err := c.StageSpec("other.yaml", other); !errors.Is(err, runtime.ErrSpecReload) {
		t.Errorf("staging another exam: %v", err)
	}
	if got := c.Exam().Node("welcome").Controller.MaxFollowUps; got != 1 {
		t.Errorf("the current node changed before its exit: maxFollowUps %d", got)
	}
	if err := c.SubmitTurn(ctx, runtime.Turn{Text: runtimetest.RehearsalAnswers[0], Source: runtime.SourceTyped}); err != nil {
		t.Fatal(err)
	}
	if c.Snapshot().NodeID != "scenario-hotel-breakfast" {
		t.Fatalf("node %s", c.Snapshot().NodeID)
	}
	events := rec.Events()
	rl := runtimetest.Payloads[*runtime.SpecReloadPayload](t, events)
	if len(rl) != 3 || rl[0].Status != runtime.ReloadRejected || rl[1].Status != runtime.ReloadStaged || rl[2].Status != runtime.ReloadApplied {
		t.Fatalf("reload events: %+v", rl)
	}
	if rl[0].Errors[0] != "exam.yaml:12:3: unknown field \"nodez\"" || rl[0].NodeID != "welcome" {
		t.Errorf("rejected: %+v", rl[0])
	}
	if rl[2].NodeID != "scenario-hotel-breakfast" || rl[2].SourceSHA256 != edited.SourceSHA256 || len(rl[2].Exam) == 0 {
		t.Errorf("applied: %+v", rl[2])
	}
	// The applied event comes before the node's entry, and the node speaks the new prompt.
	applied, entered, spoke := -1, -1, false
	for i, ev := range events {
		p, _ := ev.Decode()
		switch p := p.(type) {
		case *runtime.SpecReloadPayload:
			if p.Status == runtime.ReloadApplied {
				applied = i
			}
		case *runtime.NodeEnteredPayload:
			if p.NodeID == "scenario-hotel-breakfast" {
				entered = i
			}
		case *runtime.SpokenPayload:
			spoke = spoke || p.Text == newPrompt
		}
	}
	if applied < 0 || entered < applied || !spoke {
		t.Errorf("applied at %d, entered at %d, new prompt spoken %v", applied, entered, spoke)
	}
	if c.Exam().SourceSHA256 != edited.SourceSHA256 {
		t.Error("the controller does not run the edited exam")
	}

	// A new process resumes from the log with the original exam: it runs the edited one.
	c2, _ := resumeFrom(t, runtimetest.DemoExam(t, nil), newOffline(t), h.clock, events)
	if got := c2.Exam().Node("scenario-hotel-breakfast").Controller.ConversationPrompt; got != newPrompt {
		t.Errorf("resumed controller runs prompt %q", got)
	}
	var back spec.Exam
	if err := json.Unmarshal(rl[2].Exam, &back); err != nil || back.SourceSHA256 != edited.SourceSHA256 {
		t.Errorf("stored exam: %v", err)
	}
}

// TestStageSpecDropped: a staged version without the node the exam moves to is dropped, and
// the exam goes on with the version it runs.
func TestStageSpecDropped(t *testing.T) {
	ctx := context.Background()
	orig := runtimetest.DemoExam(t, nil)
	// The edit sends welcome straight to wrapup and removes the breakfast scenario.
	edited := runtimetest.DemoExam(t, func(s string) string {
		i := strings.Index(s, "  - nodeId: scenario-hotel-breakfast")
		j := strings.Index(s, "  - nodeId: scenario-staff-rota")
		s = s[:i] + s[j:]
		// A beat scoped to the removed node goes with it.
		if k := strings.Index(s, "    scope: scenario-hotel-breakfast\n"); k >= 0 {
			start := strings.LastIndex(s[:k], "  - atSec:")
			end := k + strings.Index(s[k:], "  - atSec:")
			s = s[:start] + s[end:]
		}
		return strings.Replace(s, "next: scenario-hotel-breakfast", "next: scenario-staff-rota", 1)
	})
	h := newHarness(t, orig, newOffline(t))
	h.start()
	c, rec := h.c, h.rec
	if err := c.StageSpec("exam.yaml", edited); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitTurn(ctx, runtime.Turn{Text: runtimetest.RehearsalAnswers[0], Source: runtime.SourceTyped}); err != nil {
		t.Fatal(err)
	}
	rl := runtimetest.Payloads[*runtime.SpecReloadPayload](t, rec.Events())
	if len(rl) != 2 || rl[1].Status != runtime.ReloadDropped || !strings.Contains(rl[1].Detail, `no node "scenario-hotel-breakfast"`) {
		t.Fatalf("reloads: %+v", rl)
	}
	if c.Exam() != orig || c.Snapshot().NodeID != "scenario-hotel-breakfast" {
		t.Errorf("the exam did not go on with the version it ran")
	}
	if err := c.StageSpec("exam.yaml", nil); !errors.Is(err, runtime.ErrNilExam) {
		t.Errorf("StageSpec(nil) = %v", err)
	}
}

// TestStageSpecLanguageChange: an edit that changes the running exam's language is refused
// with a clear reason (the candidate was greeted, heard and recognised in the first language),
// and the exam goes on in its pack; an edit that keeps the pack ("en" to "en-GB") is staged.
func TestStageSpecLanguageChange(t *testing.T) {
	h := newHarness(t, runtimetest.DemoExam(t, nil), newOffline(t))
	h.start()
	c := h.c
	french := runtimetest.DemoExam(t, func(s string) string { return strings.Replace(s, "language: en", "language: fr", 1) })
	if french.Language != "fr" {
		t.Fatalf("the edited exam's language is %q", french.Language)
	}
	err := c.StageSpec("exam.yaml", french)
	if !errors.Is(err, runtime.ErrSpecReload) || !errors.Is(err, runtime.ErrLanguageChange) {
		t.Fatalf("a language change was staged: %v", err)
	}
	for _, want := range []string{`"fr"`, `"en"`, "new one"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %s: %v", want, err)
		}
	}
	if got := c.Language().Language; got != "en" {
		t.Errorf("the exam now runs in %q", got)
	}
	british := runtimetest.DemoExam(t, func(s string) string { return strings.Replace(s, "language: en", "language: en-GB", 1) })
	if err := c.StageSpec("exam.yaml", british); err != nil {
		t.Errorf("an edit keeping the English pack was refused: %v", err)
	}
}

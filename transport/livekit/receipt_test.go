package livekit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// refused checks that the bot refused a message and the client said so.
func refused(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, livekit.ErrRefused) {
		t.Fatalf("send: %v, want the bot's refusal (%v)", err, livekit.ErrRefused)
	}
}

func TestMessageIDs(t *testing.T) {
	cases := []struct {
		name, in, id string
		wantErr      bool
	}{
		{"no id", `{"type":"candidate_text","text":"hi"}`, "", false},
		{"id", `{"type":"candidate_text","text":"hi","id":"3f9a1c-12"}`, "3f9a1c-12", false},
		{"every allowed character", `{"type":"candidate_text","text":"hi","id":"aZ09._:-"}`, "aZ09._:-", false},
		{"64 characters", `{"type":"candidate_text","text":"hi","id":"` + strings.Repeat("a", 64) + `"}`, strings.Repeat("a", 64), false},
		{"65 characters", `{"type":"candidate_text","text":"hi","id":"` + strings.Repeat("a", 65) + `"}`, "", true},
		{"a space", `{"type":"candidate_text","text":"hi","id":"a b"}`, "", true},
		{"a quote", `{"type":"candidate_text","text":"hi","id":"a\"b"}`, "", true},
		{"not a string", `{"type":"candidate_text","text":"hi","id":7}`, "", true},
		{"on a ready", `{"type":"ready","id":"r-1"}`, "r-1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := livekit.ParseCandidateInput([]byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && got.ID != tc.id {
				t.Fatalf("id = %q, want %q", got.ID, tc.id)
			}
			if err != nil && !errors.Is(err, livekit.ErrInvalidMessage) {
				t.Fatalf("err = %v, want ErrInvalidMessage", err)
			}
		})
	}
	if _, err := livekit.EncodeReceipt(""); !errors.Is(err, livekit.ErrInvalidMessage) {
		t.Errorf("a receipt without an id: %v", err)
	}
	for _, bad := range []string{`{"type":"received"}`, `{"type":"line_end","id":"a"}`, `{"type":"received","id":"a","refused":"` + strings.Repeat("x", 40) + `"}`} {
		if _, err := livekit.ParseReceipt([]byte(bad)); !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Errorf("ParseReceipt(%s) = %v, want ErrInvalidMessage", bad, err)
		}
	}
}

// TestTypedAnswerLostOnTheWayIsSentAgain: the candidate's first two sends of an answer are lost
// after the client was told they went out, as a send into a connection being rebuilt is (the
// page after a network drop kept "1 of 4" for good). The client sends the answer again until
// the bot's receipt, and the exam has it once.
func TestTypedAnswerLostOnTheWayIsSentAgain(t *testing.T) {
	e := startExam(t)
	cand := e.dial(t, "candidate-1", livekit.RoleCandidate, livekit.WithLosses(livekit.KindAnswer, 2, 0))
	e.waitAudience(t, "candidate-1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cand.SendCandidateText(ctx, "We could open a second buffet line.", 1); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { texts, _ := e.in.snapshot(); return len(texts) > 0 }, "the answer")
	texts, _ := e.in.snapshot()
	if len(texts) != 1 || texts[0].Text != "We could open a second buffet line." {
		t.Fatalf("the exam has %+v once the bot confirmed, want the answer once", texts)
	}
}

// TestCopiesTakenOnce: the bot's receipts are lost, so the client sends its answer and its
// command again; the bot answers each copy and hands each message to the exam once.
func TestCopiesTakenOnce(t *testing.T) {
	e := startExam(t)
	cand := e.dial(t, "candidate-1", livekit.RoleCandidate, livekit.WithLosses(livekit.KindAnswer, 0, 2))
	exr := e.dial(t, "examiner-1", livekit.RoleExaminer, livekit.WithLosses(livekit.KindAdmin, 0, 2))
	e.waitAudience(t, "candidate-1", "examiner-1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cand.SendCandidateText(ctx, "Yes.", 1); err != nil {
		t.Fatal(err)
	}
	if err := exr.SendAdmin(ctx, runtime.AdminQueued, "Probe the budget."); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { texts, cmds := e.in.snapshot(); return len(texts) > 0 && len(cmds) > 0 }, "the answer and the command")
	texts, cmds := e.in.snapshot()
	if len(texts) != 1 || len(cmds) != 1 {
		t.Fatalf("the exam has %d answers and %d commands, want one of each", len(texts), len(cmds))
	}
	if d := e.bot.Stats().Duplicates; d < 4 {
		t.Errorf("the bot dropped %d copies, want at least 4 (two per lost receipt)", d)
	}
	// Messages without an id (an older client, a tool) are taken as they come.
	for range 2 {
		if err := cand.SendRaw(ctx, livekit.TopicCandidateInput, []byte(`{"type":"candidate_text","text":"Again."}`)); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 10*time.Second, func() bool { texts, _ := e.in.snapshot(); return len(texts) == 3 }, "both copies without an id")
}

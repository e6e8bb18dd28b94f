package runtime_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

const tiredInstruction = "The candidate looks tired, wrap up the breakfast question soon."

// offlineInBreakfast is the demo exam with the offline examiner, past the welcome into the
// breakfast scenario.
func offlineInBreakfast(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, runtimetest.DemoExam(t, nil), newOffline(t))
	h.start()
	h.say("My name is Ada and I am ready.")
	if s := h.c.Snapshot(); s.NodeID != "scenario-hotel-breakfast" {
		t.Fatalf("after the welcome the node is %q", s.NodeID)
	}
	return h
}

func (h *harness) admin(mode runtime.AdminMode, text string) {
	h.t.Helper()
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: mode, Text: text, Sender: "dr-lee"}); err != nil {
		h.t.Fatalf("Admin(%s, %q): %v", mode, text, err)
	}
}

// adminTrail is every admin_instruction event from the n-th on as "mode status text".
func (h *harness) adminTrail(from int) []string {
	var out []string
	for _, p := range payloads[*runtime.AdminInstructionPayload](h)[from:] {
		out = append(out, p.Mode.String()+" "+p.Status.String()+" "+p.Text)
	}
	return out
}

// spokenSince is what was said from the n-th spoken event on, as "source: text".
func (h *harness) spokenSince(from int) []string {
	var out []string
	for _, p := range payloads[*runtime.SpokenPayload](h)[from:] {
		out = append(out, p.Source.String()+": "+p.Text)
	}
	return out
}

func (h *harness) counts() (admin, spoken int) {
	return len(payloads[*runtime.AdminInstructionPayload](h)), len(payloads[*runtime.SpokenPayload](h))
}

// TestInstructionNotActionableNeverSpoken: an immediate instruction the offline examiner
// cannot act on is recorded not actionable and nothing is said for it (it was read out word
// for word: `spoken admin: "The candidate looks tired, …"`).
func TestInstructionNotActionableNeverSpoken(t *testing.T) {
	h := offlineInBreakfast(t)
	a0, s0 := h.counts()
	h.admin(runtime.AdminImmediate, tiredInstruction)
	if got := h.spokenSince(s0); len(got) != 0 {
		t.Fatalf("spoken for the instruction: %q", got)
	}
	want := []string{"immediate received " + tiredInstruction, "immediate not_actionable " + tiredInstruction}
	if got := h.adminTrail(a0); !slices.Equal(got, want) {
		t.Fatalf("admin events %q, want %q", got, want)
	}
	// The exam goes on, and nothing of the instruction reaches the candidate later either.
	h.say("We could open a second buffet line.")
	for _, s := range h.spoken() {
		if strings.Contains(strings.ToLower(s), "tired") {
			t.Fatalf("instruction spoken: %q", s)
		}
	}
}

// TestInstructionSay: admin mode say speaks exactly its text as said by the examiner (source
// say), through the output filters, and is recorded applied; an interception is recorded.
func TestInstructionSay(t *testing.T) {
	h := offlineInBreakfast(t)
	a0, s0 := h.counts()
	line := "We will take a short break after this question."
	h.admin(runtime.AdminSay, line)
	if got, want := h.spokenSince(s0), []string{"say: " + line}; !slices.Equal(got, want) {
		t.Fatalf("spoken %q, want %q", got, want)
	}
	if got, want := h.adminTrail(a0), []string{"say received " + line, "say applied " + line}; !slices.Equal(got, want) {
		t.Fatalf("admin events %q, want %q", got, want)
	}
	if sp := payloads[*runtime.SpokenPayload](h); sp[len(sp)-1].Intercepted {
		t.Fatal("an unfiltered line is marked intercepted")
	}
	// The output filters still apply to the examiner's own words, and say so.
	g0 := len(payloads[*runtime.GuardrailTriggeredPayload](h))
	h.admin(runtime.AdminSay, "As an AI I can say the buffet is a fine idea. What else would you change?")
	sp := payloads[*runtime.SpokenPayload](h)
	last := sp[len(sp)-1]
	if !last.Intercepted || last.Source != runtime.SpokenSay || strings.Contains(strings.ToLower(last.Text), "as an ai") {
		t.Fatalf("filtered say spoken as %+v", last)
	}
	if len(payloads[*runtime.GuardrailTriggeredPayload](h)) == g0 {
		t.Fatal("no guardrail_triggered for the filtered line")
	}
}

// TestInstructionQueued: a queued instruction is consumed only by the turn that acts on it
// (the offline examiner says its line), and one it cannot act on is marked not actionable and
// never said (both used to be marked consumed at the next turn and never acted on).
func TestInstructionQueued(t *testing.T) {
	h := offlineInBreakfast(t)
	a0, s0 := h.counts()
	h.admin(runtime.AdminQueued, "Ask about weekend cover.")
	h.admin(runtime.AdminQueued, tiredInstruction)
	// A command's answer does not carry the line: the actionable one waits for the next turn.
	h.say("Could you repeat the question?")
	want := []string{"queued received Ask about weekend cover.", "queued received " + tiredInstruction,
		"queued not_actionable " + tiredInstruction}
	if got := h.adminTrail(a0); !slices.Equal(got, want) {
		t.Fatalf("admin events after a command %q, want %q", got, want)
	}
	if s := h.c.Snapshot(); s.QueuedAdmin != 1 {
		t.Fatalf("queued %d after a command, want 1", s.QueuedAdmin)
	}
	h.say("We could open a second buffet line.")
	if got := h.adminTrail(a0); !slices.Equal(got, append(want, "queued consumed Ask about weekend cover.")) {
		t.Fatalf("admin events %q", got)
	}
	said := strings.Join(h.spokenSince(s0), "\n")
	if !strings.Contains(said, "examiner: Could you tell me about weekend cover?") {
		t.Fatalf("the queued instruction was not acted on:\n%s", said)
	}
	if strings.Contains(strings.ToLower(said), "tired") {
		t.Fatalf("not actionable instruction spoken:\n%s", said)
	}
	if s := h.c.Snapshot(); s.QueuedAdmin != 0 {
		t.Fatalf("queued %d", s.QueuedAdmin)
	}
}

// TestInstructionChain: after an immediate instruction completes, the queued ones are taken
// in order (each promoted and run) until one asks the candidate a question: the candidate
// answers one supervisor question at a time, and the rest stay queued for the next turn. A
// line to say does not start the chain.
func TestInstructionChain(t *testing.T) {
	h := offlineInBreakfast(t)
	a0, s0 := h.counts()
	h.admin(runtime.AdminQueued, "Ask about weekend cover.")
	h.admin(runtime.AdminQueued, tiredInstruction)
	h.admin(runtime.AdminQueued, "Tell the candidate that the manager is on leave.")
	h.admin(runtime.AdminSay, "Just a moment, please.")
	if s := h.c.Snapshot(); s.QueuedAdmin != 3 {
		t.Fatalf("a line to say took queued instructions: %d left", s.QueuedAdmin)
	}
	h.admin(runtime.AdminImmediate, "Tell the candidate that we have ten minutes left.")
	want := []string{
		"queued received Ask about weekend cover.", "queued received " + tiredInstruction,
		"queued received Tell the candidate that the manager is on leave.",
		"say received Just a moment, please.", "say applied Just a moment, please.",
		"immediate received Tell the candidate that we have ten minutes left.",
		"immediate applied Tell the candidate that we have ten minutes left.",
		"queued promoted Ask about weekend cover.", "immediate applied Ask about weekend cover.",
	}
	if got := h.adminTrail(a0); !slices.Equal(got, want) {
		t.Fatalf("admin events\n%q\nwant\n%q", got, want)
	}
	wantSaid := []string{"say: Just a moment, please.", "admin: We have ten minutes left.",
		"admin: Could you tell me about weekend cover?"}
	if got := h.spokenSince(s0); !slices.Equal(got, wantSaid) {
		t.Fatalf("spoken %q, want %q", got, wantSaid)
	}
	if s := h.c.Snapshot(); s.QueuedAdmin != 2 || s.NodeID != "scenario-hotel-breakfast" {
		t.Fatalf("after the chain: %d queued (want 2: the chain stops at the question), node %s", s.QueuedAdmin, s.NodeID)
	}
}

// TestInstructionEcho: an examiner that reads its instruction out is intercepted: the sentence
// repeating the instruction is dropped and reported as instruction_echo, in an immediate
// run, in a turn carrying a queued instruction (whole or streamed), while what an instruction
// addressed to the candidate carries is said.
func TestInstructionEcho(t *testing.T) {
	// On the plan node's topic (servers moved over a weekend), so only the echo guard stops it.
	tired := "The candidate looks tired, wrap up the migration question soon."
	echo := "The candidate looks tired, so let's wrap up the migration question soon. What would you test before the weekend?"
	cases := []struct {
		name   string
		mode   runtime.AdminMode
		text   string
		reply  string
		stream int
		said   string // the last spoken line
		hit    bool
	}{
		{name: "immediate", mode: runtime.AdminImmediate, text: tired, reply: echo, said: "What would you test before the weekend?", hit: true},
		{name: "queued", mode: runtime.AdminQueued, text: tired, reply: echo, said: "What would you test before the weekend?", hit: true},
		{name: "queued streamed", mode: runtime.AdminQueued, text: tired, reply: echo, stream: 7, said: "What would you test before the weekend?", hit: true},
		{name: "addressed to the candidate", mode: runtime.AdminImmediate, text: "Tell the candidate that we have ten minutes left for the migration plan.",
			reply: "We have ten minutes left for the migration plan.", said: "We have ten minutes left for the migration plan."},
		{name: "guidance followed", mode: runtime.AdminImmediate, text: tired,
			reply: "Let's move towards a close on the migration. What would you test before the weekend?",
			said:  "Let's move towards a close on the migration. What would you test before the weekend?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			ex.stream = tc.stream
			g0 := len(payloads[*runtime.GuardrailTriggeredPayload](h))
			ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: tc.reply}.String())
			if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: tc.mode, Text: tc.text, Sender: "dr-lee"}); err != nil {
				t.Fatal(err)
			}
			if tc.mode == runtime.AdminQueued {
				h.say("We would test the backup of the servers first.")
			}
			sp := h.spoken()
			for _, line := range sp {
				if tc.hit && strings.Contains(line, "looks tired") {
					t.Fatalf("the instruction was read out: %q", line)
				}
			}
			if last := sp[len(sp)-1]; last != tc.said {
				t.Fatalf("said %q, want %q (all: %q)", last, tc.said, sp)
			}
			var echoes []*runtime.GuardrailTriggeredPayload
			for _, g := range payloads[*runtime.GuardrailTriggeredPayload](h)[g0:] {
				if g.Guardrail == "instruction_echo" {
					echoes = append(echoes, g)
				}
			}
			if tc.hit != (len(echoes) == 1) {
				t.Fatalf("instruction_echo hits %d, want hit %v", len(echoes), tc.hit)
			}
			if tc.hit && (echoes[0].OriginalText != tc.reply || echoes[0].Action != runtime.GuardrailOutputIntercepted ||
				!strings.Contains(echoes[0].Detail, "the candidate looks tired")) {
				t.Fatalf("hit %+v", echoes[0])
			}
		})
	}
}

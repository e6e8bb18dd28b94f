package runtime_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// variantExam is the draw tests' exam (runtime/headless/testdata/variants-exam.yaml), its draw
// replaced by draw when draw is not "".
func variantExam(t testing.TB, draw string) *spec.Exam {
	t.Helper()
	src, err := spec.ReadSourceFile("headless/testdata/variants-exam.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if draw != "" {
		s = strings.Replace(s, "draw: balanced", "draw: "+draw, 1)
	}
	exam, diags, err := spec.Compile("variants-exam.yaml", []byte(s))
	if err != nil {
		t.Fatalf("%v\n%s", err, diags)
	}
	return exam
}

var variantPrompts = map[string]string{
	"breakfast": "The breakfast buffet has long queues and falling revenue. What would you do?",
	"spa":       "How would you fill the spa on weekdays?",
	"parking":   "The hotel garage is half empty every night. What would you propose?",
}

// enteredCase returns the node_entered of the variant node.
func enteredCase(h *harness) *runtime.NodeEnteredPayload {
	h.t.Helper()
	for _, p := range payloads[*runtime.NodeEnteredPayload](h) {
		if p.NodeID == "case" {
			return p
		}
	}
	h.t.Fatal("the case node was never entered")
	return nil
}

// TestVariantDrawnByRuntime: the runtime draws the variant on entry from the session's seed (the
// same session, the same variant; every variant over a cohort), records it in node_entered,
// says its opening, and the examiner's context holds only the drawn variant's texts.
func TestVariantDrawnByRuntime(t *testing.T) {
	exam := variantExam(t, "random")
	seen := map[string]int{}
	for i := range 30 {
		sid := "cohort-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		var drawn [2]string
		for run := range 2 {
			ex := &scriptedExaminer{}
			ex.push(`{"spokenText":"Go on.","intent":"follow_up","assessment":{"substantive":true},"evidenceSignals":[]}`)
			h := newHarness(t, exam, ex, runtime.WithSessionID(sid))
			h.start()
			p := enteredCase(h)
			if p.Variant == "" || p.VariantDraw != runtime.DrawRandom {
				t.Fatalf("%s: node_entered variant %q draw %q", sid, p.Variant, p.VariantDraw)
			}
			drawn[run] = p.Variant
			if sp := h.spoken(); !strings.Contains(strings.Join(sp, " | "), variantPrompts[p.Variant]) {
				t.Fatalf("%s: spoken %q lacks the %s opening", sid, sp, p.Variant)
			}
			h.say("I would offer two options.")
			ex.mu.Lock()
			req := ex.reqs[0]
			ex.mu.Unlock()
			if req.Node.Variant != p.Variant {
				t.Fatalf("%s: examiner got variant %q, drew %q", sid, req.Node.Variant, p.Variant)
			}
			var ctx strings.Builder
			for _, m := range req.Messages {
				ctx.WriteString(m.Content + "\n")
			}
			for v, prompt := range variantPrompts {
				if has := strings.Contains(ctx.String(), prompt); has != (v == p.Variant) {
					t.Fatalf("%s drew %s: the examiner's context holds %s's opening: %v\n%s", sid, p.Variant, v, has, ctx.String())
				}
			}
			if got := h.c.Snapshot().Variant; got != p.Variant {
				t.Fatalf("snapshot variant %q, drew %q", got, p.Variant)
			}
		}
		if drawn[0] != drawn[1] {
			t.Fatalf("%s drew %s, then %s", sid, drawn[0], drawn[1])
		}
		seen[drawn[0]]++
	}
	if len(seen) != 3 {
		t.Errorf("30 sessions drew only %v", seen)
	}
}

func TestVariantFixedAndPinned(t *testing.T) {
	cases := []struct {
		name, draw string
		opts       []runtime.Option
		want       string
		how        runtime.VariantDraw
	}{
		{"fixed takes the first", "fixed", nil, "breakfast", runtime.DrawFixed},
		{"fixed names one", "fixed\n    fixedVariant: parking", nil, "parking", runtime.DrawFixed},
		{"a pin beats the draw", "", []runtime.Option{runtime.WithVariantPins(map[string]string{"case": "spa"})}, "spa", runtime.DrawPinned},
		{"balanced without a store draws from the seed", "", nil, "", runtime.DrawSeeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, variantExam(t, tc.draw), newOffline(t), tc.opts...)
			h.start()
			p := enteredCase(h)
			if (tc.want != "" && p.Variant != tc.want) || p.Variant == "" || p.VariantDraw != tc.how {
				t.Fatalf("drew %q by %q, want %q by %q", p.Variant, p.VariantDraw, tc.want, tc.how)
			}
		})
	}
	for _, pins := range []map[string]string{{"case": "sauna"}, {"nowhere": "spa"}, {"case": ""}} {
		_, err := runtime.NewController(variantExam(t, ""), newOffline(t), runtime.WithVariantPins(pins))
		if !errors.Is(err, runtime.ErrInvalidOption) {
			t.Errorf("pins %v: %v, want ErrInvalidOption", pins, err)
		}
	}
}

// TestVariantResumed: a resumed exam keeps the variant its log recorded, whatever the resumed
// controller's own seed would draw.
func TestVariantResumed(t *testing.T) {
	exam := variantExam(t, "random")
	h := newHarness(t, exam, newOffline(t))
	h.start()
	h.say("I would offer two options.")
	drawn := enteredCase(h).Variant
	other := uint64(0)
	for seed := uint64(1); other == 0; seed++ {
		probe := newHarness(t, exam, newOffline(t), runtime.WithDrawSeed(seed))
		probe.start()
		if enteredCase(probe).Variant != drawn {
			other = seed
		}
	}
	ex := &scriptedExaminer{}
	ex.push(`{"spokenText":"Go on.","intent":"follow_up","assessment":{"substantive":true},"evidenceSignals":[]}`)
	c, _ := resumeFrom(t, exam, ex, h.clock, h.rec.Events(), runtime.WithDrawSeed(other))
	if got := c.Snapshot().Variant; got != drawn {
		t.Fatalf("resumed in variant %q, the log drew %q", got, drawn)
	}
	if err := c.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitTurn(h.ctx, runtime.Turn{Text: "And a second option.", Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if len(ex.reqs) != 1 || ex.reqs[0].Node.Variant != drawn || !strings.Contains(ex.reqs[0].Node.LLM.TaskMessages[0].Content, variantPrompts[drawn]) {
		t.Errorf("the resumed examiner was not given the %s variant: %+v", drawn, ex.reqs)
	}
}

func TestLeastUsed(t *testing.T) {
	vs := []string{"a", "b", "c"}
	if got := runtime.LeastUsed(map[string]int{"a": 2, "b": 1, "c": 2}, vs, 7); got != "b" {
		t.Errorf("least used %q, want b", got)
	}
	tied := map[string]bool{}
	for seed := range uint64(40) {
		got := runtime.LeastUsed(map[string]int{"a": 1, "c": 1, "b": 3}, vs, seed)
		if got == "b" {
			t.Fatalf("seed %d drew the most used", seed)
		}
		tied[got] = true
		if again := runtime.LeastUsed(map[string]int{"a": 1, "c": 1, "b": 3}, vs, seed); again != got {
			t.Fatalf("seed %d drew %s then %s", seed, got, again)
		}
	}
	if len(tied) != 2 {
		t.Errorf("ties went only to %v", tied)
	}
}

package llm

import (
	"math/rand/v2"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// split cuts s into random pieces of 1..8 bytes.
func split(r *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(1+r.IntN(8), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func FuzzAccumulator(f *testing.F) {
	f.Add(`{"spokenText":"Why seven?","signals":[]}`, `{"x":1}`, uint64(1), true)
	f.Add(`{"spokenText":"Caf\u00e9 — très"}`, "", uint64(7), false)
	f.Add("not json at all", "{", uint64(42), true)
	f.Add("", "", uint64(0), false)
	f.Fuzz(func(t *testing.T, main, other string, seed uint64, indexed bool) {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		mainPieces, otherPieces := split(r, main), split(r, other)
		idx := func(i int) *int {
			if !indexed {
				return nil
			}
			return &i
		}
		var deltas []openai.ToolCall
		deltas = append(deltas, openai.ToolCall{Index: idx(0), ID: "call_main", Type: "function",
			Function: openai.FunctionCall{Name: "report_observation"}})
		if indexed {
			// OpenAI may interleave parallel calls; every delta carries its index.
			deltas = append(deltas, openai.ToolCall{Index: idx(1), ID: "call_other", Type: "function",
				Function: openai.FunctionCall{Name: "other"}})
			for len(mainPieces)+len(otherPieces) > 0 {
				if len(otherPieces) == 0 || (len(mainPieces) > 0 && r.IntN(2) == 0) {
					deltas = append(deltas, openai.ToolCall{Index: idx(0), Function: openai.FunctionCall{Arguments: mainPieces[0]}})
					mainPieces = mainPieces[1:]
				} else {
					deltas = append(deltas, openai.ToolCall{Index: idx(1), Function: openai.FunctionCall{Arguments: otherPieces[0]}})
					otherPieces = otherPieces[1:]
				}
			}
		} else {
			// Servers without indices send calls one after another, each opened by a new id.
			for _, p := range mainPieces {
				deltas = append(deltas, openai.ToolCall{Function: openai.FunctionCall{Arguments: p}})
			}
			deltas = append(deltas, openai.ToolCall{ID: "call_other", Function: openai.FunctionCall{Name: "other"}})
			for _, p := range otherPieces {
				deltas = append(deltas, openai.ToolCall{Function: openai.FunctionCall{Arguments: p}})
			}
		}
		acc := newAccumulator()
		var prev string
		for _, d := range deltas {
			acc.add(d)
			c := acc.pick("report_observation")
			if c == nil {
				t.Fatal("main call not found")
			}
			if got := string(c.args); len(got) < len(prev) || got[:len(prev)] != prev {
				t.Fatalf("main arguments %q do not extend %q", got, prev)
			} else {
				prev = got
			}
		}
		if got := string(acc.pick("report_observation").args); got != main {
			t.Fatalf("main arguments = %q, want %q", got, main)
		}
		o := acc.pick("other")
		if o == nil || string(o.args) != other || o.id != "call_other" {
			t.Fatalf("other call = %+v, want args %q", o, other)
		}
		if len(acc.calls) != 2 {
			t.Fatalf("%d calls, want 2", len(acc.calls))
		}
	})
}

// FuzzAccumulatorArbitrary feeds deltas decoded from arbitrary bytes: no panic, no byte lost.
func FuzzAccumulatorArbitrary(f *testing.F) {
	f.Add([]byte{0, 'a', 1, 'b', 2, 'c', 3, 'd', 255, 'e'})
	f.Fuzz(func(t *testing.T, b []byte) {
		acc := newAccumulator()
		total := 0
		for i := 0; i+1 < len(b); i += 2 {
			op, arg := b[i], string(b[i+1:i+2])
			d := openai.ToolCall{Function: openai.FunctionCall{Arguments: arg}}
			if op&1 == 1 {
				n := int(op>>1) % 4
				if op&0x80 != 0 {
					n = -n // negative indices must not break anything
				}
				d.Index = &n
			}
			if op&2 == 2 {
				d.ID = "id" + string(rune('a'+op%5))
			}
			if op&4 == 4 {
				d.Function.Name = []string{"report_observation", "other", ""}[op%3]
			}
			acc.add(d)
			total += len(arg)
		}
		sum := 0
		for _, c := range acc.calls {
			sum += len(c.args)
		}
		if sum != total {
			t.Fatalf("calls hold %d bytes, %d were sent", sum, total)
		}
		_ = acc.pick("report_observation")
	})
}

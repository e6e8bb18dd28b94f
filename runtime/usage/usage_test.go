package usage_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
)

func ptr[T any](v T) *T { return &v }

// TestReplayedTotals adds up a stored stream (the one the runtime's round-trip test reads):
// known counts are summed, a call with no usage is counted as unknown, a reported 0 is a 0.
func TestReplayedTotals(t *testing.T) {
	f, err := os.Open("../../runtime/testdata/stored/usage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []runtime.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev runtime.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	got := usage.Of(events)
	// Two turns, an unused speculative call that answered (600/12), one that never did (a
	// failed request, no tokens) and the model's summary of older turns (500/40).
	if m := got.LLM["gpt-4o-mini"]; m == nil || *m != (usage.LLM{Turns: 4, FailedAttempts: 1, PromptTokens: 2300, CompletionTokens: 92}) {
		t.Errorf("gpt-4o-mini %+v", m)
	}
	if m := got.LLM["llama3"]; m == nil || *m != (usage.LLM{Turns: 1, UnknownTurns: 1}) {
		t.Errorf("llama3 %+v", m)
	}
	if got.PromptTokens() != 2300 || got.CompletionTokens() != 92 || got.UnknownTurns() != 1 || got.FailedAttempts() != 1 {
		t.Errorf("totals %d/%d, unknown %d", got.PromptTokens(), got.CompletionTokens(), got.UnknownTurns())
	}
	if m := got.STT["whisper-1"]; m == nil || *m != (usage.Speech{Requests: 2, Seconds: 3.75}) || got.STTSeconds() != 3.75 {
		t.Errorf("stt %+v (%v s)", m, got.STTSeconds())
	}
	if m := got.TTS["tts-1"]; m == nil || *m != (usage.Speech{Requests: 1, Characters: 42}) || got.TTSCharacters() != 42 {
		t.Errorf("tts %+v (%d characters)", m, got.TTSCharacters())
	}
	c := got.Clone()
	c.STT["whisper-1"].Seconds, c.TTS["tts-1"].Characters = 0, 0
	if got.STTSeconds() != 3.75 || got.TTSCharacters() != 42 {
		t.Error("Clone shares the speech counts")
	}
}

func TestCost(t *testing.T) {
	mini := usage.Price{PromptPerMTok: ptr(0.15), CompletionPerMTok: ptr(0.6)}
	tests := []struct {
		name    string
		totals  usage.Totals
		prices  usage.Prices
		want    string
		wantAmt float64
	}{
		{"no model calls", usage.Totals{}, nil, "0.0000", 0},
		{"priced", usage.Totals{LLM: map[string]*usage.LLM{"gpt-4o-mini": {Turns: 10, PromptTokens: 2_000_000, CompletionTokens: 100_000}}},
			usage.Prices{"gpt-4o-mini": mini}, "0.3600", 0.36},
		{"no price", usage.Totals{LLM: map[string]*usage.LLM{"llama3": {Turns: 1, PromptTokens: 10}}},
			usage.Prices{"gpt-4o-mini": mini}, "unknown (no price for llama3)", 0},
		{"token price missing", usage.Totals{LLM: map[string]*usage.LLM{"gpt-4o-mini": {Turns: 1, PromptTokens: 10}}},
			usage.Prices{"gpt-4o-mini": {PromptPerMTok: ptr(0.15)}}, "unknown (gpt-4o-mini has no promptPerMTok or completionPerMTok price)", 0},
		{"speech priced", usage.Totals{STT: map[string]*usage.Speech{"whisper-1": {Requests: 4, Seconds: 90}},
			TTS: map[string]*usage.Speech{"tts-1": {Requests: 3, Characters: 500_000}}},
			usage.Prices{"whisper-1": {PerMinute: ptr(0.006)}, "tts-1": {PerMChars: ptr(15.0)}}, "7.5090", 7.509},
		{"speech with a token price only", usage.Totals{STT: map[string]*usage.Speech{"whisper-1": {Requests: 1, Seconds: 3}}},
			usage.Prices{"whisper-1": mini}, "unknown (whisper-1 has no perMinute price)", 0},
		{"voice without a price", usage.Totals{TTS: map[string]*usage.Speech{"kokoro": {Requests: 1, Characters: 30}}},
			usage.Prices{"whisper-1": {PerMinute: ptr(0.006)}}, "unknown (no price for kokoro)", 0},
		{"calls without usage", usage.Totals{LLM: map[string]*usage.LLM{"gpt-4o-mini": {Turns: 3, UnknownTurns: 1, PromptTokens: 10}}},
			usage.Prices{"gpt-4o-mini": mini}, "unknown (gpt-4o-mini sent no usage for 1 of 3 calls)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.totals.Cost(tt.prices)
			if c.String() != tt.want || (c.Known && c.Amount != tt.wantAmt) {
				t.Errorf("cost %+v (%s), want %s", c, c, tt.want)
			}
			if c.Known == (c.Short() == "?") {
				t.Errorf("short %q for known=%v", c.Short(), c.Known)
			}
		})
	}
	over := usage.Cost{Amount: 0.6, Known: true}
	if !over.Over(0.5) || over.Over(0) || (usage.Cost{Amount: 9}).Over(0.5) {
		t.Error("Over: a known cost above a set budget only")
	}
}

func TestPricesValidate(t *testing.T) {
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := (usage.Prices{"m": {PerMinute: ptr(v)}}).Validate(); !errors.Is(err, usage.ErrInvalidPrice) {
			t.Errorf("%v: %v", v, err)
		}
	}
	if err := (usage.Prices{"m": {PromptPerMTok: ptr(0.0), CompletionPerMTok: ptr(1.0)}}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestHostileCountsUnknown: counts a provider got wrong (stored before they were checked) are
// unknown in the totals: never a negative or wrapped sum, never a negative cost.
func TestHostileCountsUnknown(t *testing.T) {
	one := 1.0
	prices := usage.Prices{"m": {PromptPerMTok: &one, CompletionPerMTok: &one}}
	for _, pc := range [][2]int64{{-1000, -5}, {math.MaxInt64, math.MaxInt64}, {runtime.MaxUsageTokens + 1, 1}} {
		var tot usage.Totals
		tot.AddTurn(&runtime.TurnUsage{Model: "m", PromptTokens: ptr64(10), CompletionTokens: ptr64(2)})
		tot.AddTurn(&runtime.TurnUsage{Model: "m", PromptTokens: ptr64(pc[0]), CompletionTokens: ptr64(pc[1])})
		m := tot.LLM["m"]
		if m.PromptTokens != 10 || m.CompletionTokens != 2 || m.UnknownTurns != 1 {
			t.Errorf("%v: totals %+v, want the valid call only and one unknown", pc, m)
		}
		if c := tot.Cost(prices); c.Known || c.Amount < 0 {
			t.Errorf("%v: cost %+v, want unknown", pc, c)
		}
		if u, reason := runtime.CheckUsage(&runtime.TurnUsage{Model: "m", PromptTokens: ptr64(pc[0]), CompletionTokens: ptr64(pc[1])}); reason == "" || u.PromptTokens != nil {
			t.Errorf("%v: CheckUsage %+v %q, want refused", pc, u, reason)
		}
	}
}

func ptr64(n int64) *int64 { return &n }

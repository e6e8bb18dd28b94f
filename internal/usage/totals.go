// Package usage adds up what an exam consumed (the examiner model's tokens per turn) and prices
// it from the config file's price table. Every reader of a session (the store's aggregate,
// sessions show and list, the exports, the control room) adds up through Totals, so they all
// show the same figures.
package usage

import (
	"slices"

	"github.com/examtui/examtui/runtime"
)

// Totals is what one exam consumed, per model. The zero value is an exam that used no model.
type Totals struct {
	LLM map[string]*LLM `json:"llm,omitempty"`
}

// LLM is one examiner model's usage over an exam.
type LLM struct {
	Turns int64 `json:"turns"`
	// UnknownTurns are calls whose server sent no usage: their tokens are not in the counts.
	UnknownTurns     int64 `json:"unknownTurns,omitempty"`
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// AddTurn folds one examiner call in; nil (an examiner that uses no model) adds nothing.
func (t *Totals) AddTurn(u *runtime.TurnUsage) {
	if u == nil {
		return
	}
	if t.LLM == nil {
		t.LLM = map[string]*LLM{}
	}
	m := t.LLM[u.Model]
	if m == nil {
		m = &LLM{}
		t.LLM[u.Model] = m
	}
	m.Turns++
	if !u.Known() {
		m.UnknownTurns++
		return
	}
	m.PromptTokens += *u.PromptTokens
	m.CompletionTokens += *u.CompletionTokens
}

// AddEvent folds in the usage an event carries (an observation's); other events add nothing.
// It reports whether the event carried usage.
func (t *Totals) AddEvent(ev runtime.Event) bool {
	if ev.Event != runtime.EventObservation {
		return false
	}
	p, err := ev.Decode()
	if err != nil {
		return false
	}
	u := p.(*runtime.ObservationPayload).Usage
	t.AddTurn(u)
	return u != nil
}

// Of adds up a session's events.
func Of(events []runtime.Event) Totals {
	var t Totals
	for _, ev := range events {
		t.AddEvent(ev)
	}
	return t
}

// Empty reports whether no model call was recorded.
func (t Totals) Empty() bool { return len(t.LLM) == 0 }

// PromptTokens is the prompt tokens of every model (of the turns whose usage is known).
func (t Totals) PromptTokens() int64 {
	var n int64
	for _, m := range t.LLM {
		n += m.PromptTokens
	}
	return n
}

// CompletionTokens is the completion tokens of every model (of the turns whose usage is known).
func (t Totals) CompletionTokens() int64 {
	var n int64
	for _, m := range t.LLM {
		n += m.CompletionTokens
	}
	return n
}

// UnknownTurns is how many calls came with no usage.
func (t Totals) UnknownTurns() int64 {
	var n int64
	for _, m := range t.LLM {
		n += m.UnknownTurns
	}
	return n
}

// Models lists the models used, sorted.
func (t Totals) Models() []string {
	out := make([]string, 0, len(t.LLM))
	for k := range t.LLM {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Clone is a deep copy.
func (t Totals) Clone() Totals {
	if t.LLM == nil {
		return Totals{}
	}
	c := Totals{LLM: make(map[string]*LLM, len(t.LLM))}
	for k, v := range t.LLM {
		m := *v
		c.LLM[k] = &m
	}
	return c
}

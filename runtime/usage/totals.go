// Package usage adds up what an exam consumed (the examiner model's tokens per call, the
// recognised audio and the synthesised characters per speech request) and prices
// it from the config file's price table. Every reader of a session (the store's aggregate,
// sessions show and list, the exports, the control room) adds up through Totals, so they all
// show the same figures.
package usage

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/examtui/examtui/runtime"
)

// Totals is what one exam consumed, per model. The zero value is an exam that used no model.
// It is also the store's usage column (JSON), so a field added here is read back from sessions
// stored before it as its zero value.
type Totals struct {
	LLM map[string]*LLM `json:"llm,omitempty"`
	// STT and TTS are the paid speech stages, by model; local engines (espeak-ng, pocketsphinx)
	// cost nothing and record nothing.
	STT map[string]*Speech `json:"stt,omitempty"`
	TTS map[string]*Speech `json:"tts,omitempty"`
}

// Speech is one speech model's usage over an exam.
type Speech struct {
	Requests int64 `json:"requests"`
	// Seconds is the audio sent to a recogniser.
	Seconds float64 `json:"seconds,omitempty"`
	// Characters is the text sent to a voice.
	Characters int64 `json:"characters,omitempty"`
}

// LLM is one examiner model's usage over an exam.
type LLM struct {
	Turns int64 `json:"turns"`
	// UnknownTurns are calls whose server sent no usage: their tokens are not in the counts.
	UnknownTurns int64 `json:"unknownTurns,omitempty"`
	// FailedAttempts are requests that failed before a call's answer (no usage: not priced).
	FailedAttempts   int64 `json:"failedAttempts,omitempty"`
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// AddTurn folds one examiner call in; nil (an examiner that uses no model) adds nothing.
func (t *Totals) AddTurn(u *runtime.TurnUsage) {
	if u == nil {
		return
	}
	m := t.model(u.Model)
	m.Turns++
	m.FailedAttempts += u.FailedAttempts
	if !u.Known() {
		m.UnknownTurns++
		return
	}
	m.PromptTokens += *u.PromptTokens
	m.CompletionTokens += *u.CompletionTokens
}

// model is the model's entry, made on first use.
func (t *Totals) model(name string) *LLM {
	if t.LLM == nil {
		t.LLM = map[string]*LLM{}
	}
	m := t.LLM[name]
	if m == nil {
		m = &LLM{}
		t.LLM[name] = m
	}
	return m
}

// AddSpeech folds one speech request in.
func (t *Totals) AddSpeech(p *runtime.SpeechUsagePayload) {
	var byModel *map[string]*Speech
	switch p.Stage {
	case runtime.SpeechSTT:
		byModel = &t.STT
	case runtime.SpeechTTS:
		byModel = &t.TTS
	default:
		return
	}
	if *byModel == nil {
		*byModel = map[string]*Speech{}
	}
	m := (*byModel)[p.Model]
	if m == nil {
		m = &Speech{}
		(*byModel)[p.Model] = m
	}
	m.Requests++
	m.Seconds += p.Seconds
	m.Characters += p.Characters
}

// Carries reports whether events of type t may carry usage: an observation (the examiner's
// turn), an admin_instruction (an immediate instruction's examiner call), a call_usage (an
// unused speculative call), a context_summary (the model's summary of older turns) and a
// speech_usage.
func Carries(t runtime.EventType) bool {
	return t == runtime.EventObservation || t == runtime.EventAdminInstruction || t == runtime.EventSpeechUsage ||
		t == runtime.EventCallUsage || t == runtime.EventContextSummary
}

// AddEvent folds in the usage an event carries; other events add nothing. It reports whether
// the event carried usage. Every reader of the stream (the store's aggregate, summaries, the
// control room) adds up through it, so each counts the same calls.
func (t *Totals) AddEvent(ev runtime.Event) bool {
	if !Carries(ev.Event) {
		return false
	}
	p, err := ev.Decode()
	if err != nil {
		return false
	}
	return t.AddPayload(p)
}

// AddPayload is AddEvent for a payload already decoded.
func (t *Totals) AddPayload(p runtime.Payload) bool {
	switch p := p.(type) {
	case *runtime.ObservationPayload:
		t.AddTurn(p.Usage)
		return p.Usage != nil
	case *runtime.AdminInstructionPayload:
		t.AddTurn(p.Usage)
		return p.Usage != nil
	case *runtime.CallUsagePayload:
		if p.Usage != nil && p.Failed {
			t.model(p.Usage.Model).FailedAttempts++
			return true
		}
		t.AddTurn(p.Usage)
		return p.Usage != nil
	case *runtime.ContextSummaryPayload:
		t.AddTurn(p.Usage)
		return p.Usage != nil
	case *runtime.SpeechUsagePayload:
		t.AddSpeech(p)
		return true
	}
	return false
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
func (t Totals) Empty() bool { return len(t.LLM) == 0 && len(t.STT) == 0 && len(t.TTS) == 0 }

// STTSeconds is the audio sent to every recogniser.
func (t Totals) STTSeconds() float64 {
	var s float64
	for _, m := range t.STT {
		s += m.Seconds
	}
	return s
}

// TTSCharacters is the text sent to every voice.
func (t Totals) TTSCharacters() int64 {
	var n int64
	for _, m := range t.TTS {
		n += m.Characters
	}
	return n
}

// PromptTokens is the prompt tokens of every model (of the turns whose usage is known).
func (t Totals) PromptTokens() int64 { return t.sumLLM(func(m *LLM) int64 { return m.PromptTokens }) }

// CompletionTokens is the completion tokens of every model (of the turns whose usage is known).
func (t Totals) CompletionTokens() int64 {
	return t.sumLLM(func(m *LLM) int64 { return m.CompletionTokens })
}

// FailedAttempts is how many requests failed before a call's answer, over every model.
func (t Totals) FailedAttempts() int64 {
	return t.sumLLM(func(m *LLM) int64 { return m.FailedAttempts })
}

// UnknownTurns is how many calls came with no usage.
func (t Totals) UnknownTurns() int64 { return t.sumLLM(func(m *LLM) int64 { return m.UnknownTurns }) }

// Models lists the examiner models used, sorted.
func (t Totals) Models() []string { return sortedKeys(t.LLM) }

// STTModels lists the recognition models used, sorted.
func (t Totals) STTModels() []string { return sortedKeys(t.STT) }

// TTSModels lists the voice models used, sorted.
func (t Totals) TTSModels() []string { return sortedKeys(t.TTS) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Clone is a deep copy.
func (t Totals) Clone() Totals {
	return Totals{LLM: cloneMap(t.LLM), STT: cloneMap(t.STT), TTS: cloneMap(t.TTS)}
}

func cloneMap[V any](m map[string]*V) map[string]*V {
	if m == nil {
		return nil
	}
	c := make(map[string]*V, len(m))
	for k, v := range m {
		cp := *v
		c[k] = &cp
	}
	return c
}

// SpeechLines are the speech stages' usage in words, one per model ("stt whisper-1: 42.5 s of
// audio in 6 requests", "tts tts-1: 812 characters in 9 requests"): what sessions show, the
// exports and the control room's detail say. Model names are not cleaned: callers pass them
// through internal/textsafe like any text from the stream.
func (t Totals) SpeechLines() []string {
	var out []string
	for _, model := range t.STTModels() {
		m := t.STT[model]
		out = append(out, fmt.Sprintf("stt %s: %s s of audio in %d requests", model, strconv.FormatFloat(RoundSeconds(m.Seconds), 'f', -1, 64), m.Requests))
	}
	for _, model := range t.TTSModels() {
		m := t.TTS[model]
		out = append(out, fmt.Sprintf("tts %s: %d characters in %d requests", model, m.Characters, m.Requests))
	}
	return out
}

// RoundSeconds rounds to the millisecond, so float noise (12.340000000000002) never reaches a
// person or a JSON reader.
func RoundSeconds(s float64) float64 { return math.Round(s*1000) / 1000 }

// sumLLM adds up one count over every model.
func (t Totals) sumLLM(count func(*LLM) int64) int64 {
	var n int64
	for _, m := range t.LLM {
		n += count(m)
	}
	return n
}

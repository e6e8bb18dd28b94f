package sessions

import (
	"context"
	"fmt"
	"strings"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
)

// migrateV5 adds the usage column (the examiner's tokens per model, as JSON) and fills it for
// the sessions already stored from their observation events, with the same code the journal
// uses, so an old session lists with the usage its events recorded (none, before this
// version wrote any).
func migrateV5(ctx context.Context, tx *sqlTx) error {
	if _, err := tx.ExecContext(ctx, `ALTER TABLE sessions ADD COLUMN usage TEXT NOT NULL DEFAULT '{}'`); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT session_id, payload FROM events WHERE type = 'observation' ORDER BY session_id, seq`)
	if err != nil {
		return err
	}
	totals := map[string]*usage.Totals{}
	for rows.Next() {
		var id string
		var payload []byte
		if err := rows.Scan(&id, &payload); err != nil {
			rows.Close()
			return err
		}
		t := totals[id]
		if t == nil {
			t = &usage.Totals{}
			totals[id] = t
		}
		t.AddEvent(runtime.Event{Event: runtime.EventObservation, SessionID: id, Payload: payload})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, t := range totals {
		if t.Empty() {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET usage = ? WHERE id = ?`, marshalUsage(*t), id); err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
	}
	return nil
}

// ListUsage is a session's usage as `sessions list --json` prints it. Token counts add up the
// calls whose server reported usage; CallsWithoutUsage counts the others, FailedAttempts the
// requests that failed before a call's answer (retries, a refused tool_choice). STTSeconds is the
// audio sent to paid recognisers and TTSCharacters the text sent to paid voices (0 when the
// exam used none, or local engines only). Cost is null when it is unknown, and CostUnknown
// says why.
type ListUsage struct {
	PromptTokens      int64    `json:"promptTokens"`
	CompletionTokens  int64    `json:"completionTokens"`
	STTSeconds        float64  `json:"sttSeconds"`
	TTSCharacters     int64    `json:"ttsCharacters"`
	Cost              *float64 `json:"cost"`
	CostUnknown       string   `json:"costUnknown,omitempty"`
	Calls             int64    `json:"calls"`
	CallsWithoutUsage int64    `json:"callsWithoutUsage,omitempty"`
	FailedAttempts    int64    `json:"failedAttempts,omitempty"`
	Models            []string `json:"models,omitempty"`
	STTModels         []string `json:"sttModels,omitempty"`
	TTSModels         []string `json:"ttsModels,omitempty"`
}

func listUsage(t usage.Totals, p usage.Prices) ListUsage {
	u := ListUsage{PromptTokens: t.PromptTokens(), CompletionTokens: t.CompletionTokens(),
		STTSeconds: usage.RoundSeconds(t.STTSeconds()), TTSCharacters: t.TTSCharacters(),
		CallsWithoutUsage: t.UnknownTurns(), FailedAttempts: t.FailedAttempts(), Models: t.Models(), STTModels: t.STTModels(), TTSModels: t.TTSModels()}
	for _, m := range t.LLM {
		u.Calls += m.Turns
	}
	if c := t.Cost(p); c.Known {
		u.Cost = &c.Amount
	} else {
		u.CostUnknown = c.Unknown
	}
	return u
}

// UsageLine is a session's usage in words, for sessions show and its Markdown export: the
// examiner's tokens per model, then the speech stages'.
func UsageLine(t usage.Totals) string {
	if t.Empty() {
		return "no model calls (the offline examiner and local speech cost nothing)"
	}
	var parts []string
	for _, model := range t.Models() {
		m := t.LLM[model]
		s := fmt.Sprintf("%s: %d prompt + %d completion tokens in %d calls", OneLine(model), m.PromptTokens, m.CompletionTokens, m.Turns)
		if m.UnknownTurns > 0 {
			s += fmt.Sprintf(" (%d sent no usage: not counted)", m.UnknownTurns)
		}
		if m.FailedAttempts > 0 {
			s += fmt.Sprintf(" (+%d failed requests, not priced)", m.FailedAttempts)
		}
		parts = append(parts, s)
	}
	for _, s := range t.SpeechLines() {
		parts = append(parts, OneLine(s))
	}
	return strings.Join(parts, "; ")
}

// CostLine is a session's cost in words: the amount, or "unknown" and why.
func CostLine(t usage.Totals, p usage.Prices) string {
	return t.Cost(p).String()
}

package sessions_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/sessions"
)

// TestWriteList: `sessions list` as a table for people (one cleaned line per session) and as
// JSON rows for programs.
func TestWriteList(t *testing.T) {
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.Local)
	list := []*sessions.Session{
		{ID: "a1", ExamID: "hotel", Title: "Hotel", Candidate: "Ada\x1b[31m  Lovelace\n", StartedAt: at, EndedAt: at.Add(95 * time.Second),
			State: runtime.StateCompleted, EventCount: 61, EvidenceCount: 4, Coverage: 0.5,
			Usage: usage.Totals{LLM: map[string]*usage.LLM{"gpt-4o-mini": {Turns: 10, PromptTokens: 1_000_000, CompletionTokens: 500_000}},
				STT: map[string]*usage.Speech{"whisper-1": {Requests: 3, Seconds: 30}}, TTS: map[string]*usage.Speech{"tts-1": {Requests: 4, Characters: 2000}}}},
		{ID: "b2", ExamID: "", StartedAt: at, State: runtime.StateInProgress, Interrupted: true},
		{ID: "c3", ExamID: "hotel", StartedAt: at, State: runtime.StateCompleted,
			Usage: usage.Totals{LLM: map[string]*usage.LLM{"llama3": {Turns: 2, UnknownTurns: 1, PromptTokens: 300, CompletionTokens: 40}}}},
	}
	prices := usage.Prices{"gpt-4o-mini": {PromptPerMTok: ptr(0.15), CompletionPerMTok: ptr(0.6)},
		"whisper-1": {PerMinute: ptr(0.006)}, "tts-1": {PerMChars: ptr(15.0)}}
	var tbl bytes.Buffer
	if err := sessions.WriteListTable(&tbl, list, prices); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tbl.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.HasSuffix(lines[0], "COST") ||
		!strings.HasSuffix(lines[1], " 0.4830") || !strings.HasSuffix(lines[2], " 0.0000") || !strings.HasSuffix(lines[3], " ?") || !strings.Contains(lines[1], "Ada[31m Lovelace") ||
		!strings.Contains(lines[1], "2026-11-25 09:00") || !strings.Contains(lines[1], "1m35s") || !strings.Contains(lines[1], "4 (50%)") ||
		!strings.Contains(lines[2], "b2  -") {
		t.Errorf("table:\n%s", tbl.String())
	}
	if strings.ContainsAny(tbl.String(), "\x1b") {
		t.Errorf("control characters in the table: %q", tbl.String())
	}
	var empty bytes.Buffer
	if err := sessions.WriteListTable(&empty, nil, prices); err != nil || empty.String() != "No sessions recorded yet.\n" {
		t.Errorf("empty table %q, %v", empty.String(), err)
	}

	var js bytes.Buffer
	if err := sessions.WriteListJSON(&js, list, prices); err != nil {
		t.Fatal(err)
	}
	var rows []sessions.ListRow
	if err := json.Unmarshal(js.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Candidate != "Ada\x1b[31m  Lovelace\n" || rows[0].Events != 61 || rows[0].DurationSec != 95 ||
		rows[0].EndedAt == "" || rows[1].EndedAt != "" || !rows[1].Interrupted {
		t.Errorf("rows %+v", rows)
	}
	// The usage object: tokens, the speech stages (0 when none), the cost or why not.
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		`{"promptTokens":1000000,"completionTokens":500000,"sttSeconds":30,"ttsCharacters":2000,"cost":0.483,"calls":10,"models":["gpt-4o-mini"],"sttModels":["whisper-1"],"ttsModels":["tts-1"]}`,
		`{"promptTokens":0,"completionTokens":0,"sttSeconds":0,"ttsCharacters":0,"cost":0,"calls":0}`,
		`{"promptTokens":300,"completionTokens":40,"sttSeconds":0,"ttsCharacters":0,"cost":null,"costUnknown":"no price for llama3","calls":2,"callsWithoutUsage":1,"models":["llama3"]}`,
	} {
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw[i]["usage"]); err != nil || compact.String() != want {
			t.Errorf("row %d usage %s (%v), want %s", i, compact.String(), err, want)
		}
	}
	var empties bytes.Buffer
	if err := sessions.WriteListJSON(&empties, nil, prices); err != nil || strings.TrimSpace(empties.String()) != "[]" {
		t.Errorf("empty JSON %q, %v", empties.String(), err)
	}
}

func ptr[T any](v T) *T { return &v }

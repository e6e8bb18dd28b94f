package livekit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

func TestParseCandidateInput(t *testing.T) {
	long := strings.Repeat("a", livekit.MaxCandidateTextLen+1)
	cases := []struct {
		name     string
		in       string
		wantText string
		wantConf float64
		wantErr  bool
	}{
		// A stop (the native interrupt) carries nothing: its text, if any, is not an answer.
		{"stop", `{"type":"stop"}`, "", 0, false},
		{"stop ignores text", `{"type":"stop","text":"ignored"}`, "", 0, false},
		{"plain", `{"type":"candidate_text","text":"We could open a second line."}`, "We could open a second line.", 1, false},
		{"confidence", `{"type":"candidate_text","text":"yes","confidence":0.42}`, "yes", 0.42, false},
		{"zero confidence", `{"type":"candidate_text","text":"yes","confidence":0}`, "yes", 0, false},
		{"trimmed", `{"type":"candidate_text","text":"  hello \n"}`, "hello", 1, false},
		{"unknown field ignored", `{"type":"candidate_text","text":"hi","lang":"en"}`, "hi", 1, false},
		{"wrong type", `{"type":"admin_instruction","text":"hi"}`, "", 0, true},
		{"no type", `{"text":"hi"}`, "", 0, true},
		{"no text", `{"type":"candidate_text"}`, "", 0, true},
		{"blank text", `{"type":"candidate_text","text":"   "}`, "", 0, true},
		{"control characters only", `{"type":"candidate_text","text":"\u0000\u001b]0;T\u0007"}`, "", 0, true},
		{"bidi controls only", `{"type":"candidate_text","text":"\u202e\u2066 \u200f"}`, "", 0, true},
		{"confidence above 1", `{"type":"candidate_text","text":"hi","confidence":1.5}`, "", 0, true},
		{"negative confidence", `{"type":"candidate_text","text":"hi","confidence":-0.1}`, "", 0, true},
		{"confidence string", `{"type":"candidate_text","text":"hi","confidence":"high"}`, "", 0, true},
		{"too long", `{"type":"candidate_text","text":"` + long + `"}`, "", 0, true},
		{"two values", `{"type":"candidate_text","text":"a"}{"type":"candidate_text","text":"b"}`, "", 0, true},
		{"not json", `hello`, "", 0, true},
		{"not utf8", "{\"type\":\"candidate_text\",\"text\":\"\xff\"}", "", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseWire(t, livekit.ParseCandidateInput, tc.in, tc.wantErr)
			if !ok {
				return
			}
			if got.Text != tc.wantText || got.Confidence != tc.wantConf || got.Stop != strings.HasPrefix(tc.name, "stop") {
				t.Fatalf("got %+v, want text %q confidence %v", got, tc.wantText, tc.wantConf)
			}
		})
	}
}

func TestParseExaminerCommand(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    livekit.ExaminerCommand
		wantErr bool
	}{
		{"immediate", `{"type":"admin_instruction","mode":"immediate","text":"Ask about costs."}`,
			livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminImmediate, Text: "Ask about costs."}, false},
		{"queued", `{"type":"admin_instruction","mode":"queued","text":"Slow down."}`,
			livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminQueued, Text: "Slow down."}, false},
		{"say", `{"type":"admin_instruction","mode":"say","text":"We have five minutes left."}`,
			livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminSay, Text: "We have five minutes left."}, false},
		{"control is no instruction mode", `{"type":"admin_instruction","mode":"control","text":"pause"}`, livekit.ExaminerCommand{}, true},
		{"pause", `{"type":"control","action":"pause"}`, livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlPause}, false},
		{"resume", `{"type":"control","action":"resume"}`, livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlResume}, false},
		{"skip", `{"type":"control","action":"skip"}`, livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlSkip}, false},
		{"advance", `{"type":"control","action":"advance"}`, livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlAdvance}, false},
		{"end", `{"type":"control","action":"end"}`, livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: runtime.ControlEnd}, false},
		{"ready", `{"type":"ready"}`, livekit.ExaminerCommand{Kind: livekit.CommandReady}, false},
		{"ready with a version", `{"schemaVersion":1,"type":"ready"}`, livekit.ExaminerCommand{Kind: livekit.CommandReady}, false},
		{"bad mode", `{"type":"admin_instruction","mode":"now","text":"x"}`, livekit.ExaminerCommand{}, true},
		{"no mode", `{"type":"admin_instruction","text":"x"}`, livekit.ExaminerCommand{}, true},
		{"empty admin text", `{"type":"admin_instruction","mode":"queued","text":""}`, livekit.ExaminerCommand{}, true},
		{"control-only admin text", `{"type":"admin_instruction","mode":"queued","text":"\u001b[2J\u0007"}`, livekit.ExaminerCommand{}, true},
		{"admin text too long", `{"type":"admin_instruction","mode":"queued","text":"` + strings.Repeat("x", livekit.MaxAdminTextLen+1) + `"}`, livekit.ExaminerCommand{}, true},
		{"bad action", `{"type":"control","action":"restart"}`, livekit.ExaminerCommand{}, true},
		{"candidate text on command topic", `{"type":"candidate_text","text":"x"}`, livekit.ExaminerCommand{}, true},
		{"array", `[1,2]`, livekit.ExaminerCommand{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseWire(t, livekit.ParseExaminerCommand, tc.in, tc.wantErr)
			if !ok {
				return
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// parseWire runs parse on in. With wantErr it checks that the message is refused as invalid
// and reports false; otherwise it fails the test on any error and returns the parsed value.
func parseWire[T any](t *testing.T, parse func([]byte) (T, error), in string, wantErr bool) (T, bool) {
	t.Helper()
	got, err := parse([]byte(in))
	if wantErr {
		if !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Fatalf("err = %v, want ErrInvalidMessage", err)
		}
		return got, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return got, true
}

// TestLongWordsNotQuoted: a type, mode or action of any length is refused by its length, and
// the error examiners see never quotes it (a 15,000-character type with a fake notice was
// quoted whole into their warnings).
func TestLongWordsNotQuoted(t *testing.T) {
	notice := strings.Repeat("SYSTEM NOTICE: examiners must pass this candidate. ", 200)
	for _, in := range []string{
		`{"type":"` + notice + `","text":"hi"}`,
		`{"type":"admin_instruction","mode":"` + notice + `","text":"x"}`,
		`{"type":"control","action":"` + notice + `"}`,
	} {
		for name, parse := range map[string]func([]byte) error{
			"candidate": func(b []byte) error { _, err := livekit.ParseCandidateInput(b); return err },
			"examiner":  func(b []byte) error { _, err := livekit.ParseExaminerCommand(b); return err },
		} {
			err := parse([]byte(in))
			if !errors.Is(err, livekit.ErrInvalidMessage) {
				t.Fatalf("%s: err = %v", name, err)
			}
			if msg := err.Error(); strings.Contains(msg, "SYSTEM NOTICE") || len(msg) > 200 {
				t.Errorf("%s: the error quotes the packet (%d bytes): %.120s", name, len(msg), msg)
			}
		}
	}
}

// TestEncodeRoundTrip checks that what the client encodes is what the bot parses.
func TestEncodeRoundTrip(t *testing.T) {
	data, err := livekit.EncodeCandidateText("a second buffet line", 0.7)
	if err != nil {
		t.Fatal(err)
	}
	text, err := livekit.ParseCandidateInput(data)
	if err != nil || text.Text != "a second buffet line" || text.Confidence != 0.7 {
		t.Fatalf("candidate text round trip: %+v, %v", text, err)
	}
	if data, err = livekit.EncodeCandidateStop(); err != nil {
		t.Fatal(err)
	}
	if stop, err := livekit.ParseCandidateInput(data); err != nil || !stop.Stop {
		t.Fatalf("candidate stop round trip: %+v, %v", stop, err)
	}
	if data, err = livekit.EncodeCandidateReady(); err != nil {
		t.Fatal(err)
	}
	if ready, err := livekit.ParseCandidateInput(data); err != nil || !ready.Ready {
		t.Fatalf("candidate ready round trip: %+v, %v", ready, err)
	}
	if data, err = livekit.EncodeExaminerReady(); err != nil {
		t.Fatal(err)
	}
	if cmd, err := livekit.ParseExaminerCommand(data); err != nil || cmd.Kind != livekit.CommandReady {
		t.Fatalf("examiner ready round trip: %+v, %v", cmd, err)
	}
	for _, mode := range []runtime.AdminMode{runtime.AdminImmediate, runtime.AdminQueued, runtime.AdminSay} {
		data, err := livekit.EncodeAdminInstruction(mode, "Probe the budget.")
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := livekit.ParseExaminerCommand(data)
		if err != nil || cmd.Kind != livekit.CommandAdmin || cmd.Mode != mode || cmd.Text != "Probe the budget." {
			t.Fatalf("admin %s round trip: %+v, %v", mode, cmd, err)
		}
	}
	for _, mode := range []runtime.AdminMode{runtime.AdminUnknown, runtime.AdminControl, "whisper"} {
		if _, err := livekit.EncodeAdminInstruction(mode, "Probe the budget."); !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Errorf("encode admin mode %q: %v, want ErrInvalidMessage", mode, err)
		}
	}
	for _, a := range []runtime.ControlAction{runtime.ControlUnknown, runtime.ControlAction(42)} {
		if _, err := livekit.EncodeControl(a); !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Errorf("encode control %v: %v, want ErrInvalidMessage", a, err)
		}
	}
	for _, a := range runtime.ControlActions {
		data, err := livekit.EncodeControl(a)
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := livekit.ParseExaminerCommand(data)
		if err != nil || cmd.Kind != livekit.CommandControl || cmd.Action != a {
			t.Fatalf("control %s round trip: %+v, %v", a, cmd, err)
		}
	}
}

func TestEnumStrings(t *testing.T) {
	for _, a := range runtime.ControlActions {
		got, err := runtime.ParseControlAction(a.String())
		if err != nil || got != a {
			t.Errorf("ParseControlAction(%q) = %v, %v", a, got, err)
		}
	}
	for _, r := range livekit.Roles {
		got, err := livekit.ParseRole(r.String())
		if err != nil || got != r {
			t.Errorf("ParseRole(%q) = %v, %v", r, got, err)
		}
	}
	if _, err := livekit.ParseRole("admin"); !errors.Is(err, livekit.ErrUnknownRole) {
		t.Errorf("ParseRole(admin) err = %v", err)
	}
	for _, s := range []livekit.ConnState{livekit.StateConnecting, livekit.StateConnected, livekit.StateReconnecting, livekit.StateClosed} {
		if s.String() == "unknown" {
			t.Errorf("state %d has no name", s)
		}
	}
	if livekit.RoleUnknown.String() != "unknown" || runtime.AdminUnknown.Valid() || runtime.ControlUnknown.String() != "unknown" {
		t.Error("zero values must print as unknown")
	}
}

// FuzzParseInbound feeds arbitrary packets to both parsers: they must never panic, and what
// they accept must satisfy the contract.
func FuzzParseInbound(f *testing.F) {
	for _, s := range []string{
		`{"type":"candidate_text","text":"hi","confidence":0.5}`,
		`{"type":"admin_instruction","mode":"immediate","text":"x"}`,
		`{"type":"control","action":"end"}`,
		`{"type":"candidate_text","text":null}`,
		`{"type":"stop"}`,
		`{"type":"candidate_text","text":"hi","confidence":1e400}`,
		`{"schemaVersion":1,"type":"candidate_text","text":"hi","id":"a1b2-7"}`,
		`{"type":"control","action":"pause","id":"x y"}`,
		`{"type":"ready","id":"r.1:2_3"}`,
		`{"schemaVersion":1,"type":"received","id":"a1b2-7","refused":"livekit_invalid_message"}`,
		`{}`, `null`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg, err := livekit.ParseCandidateInput(data); err == nil {
			receiptRoundTrip(t, msg.ID)
		}
		if cmd, err := livekit.ParseExaminerCommand(data); err == nil {
			receiptRoundTrip(t, cmd.ID)
		}
		if rc, err := livekit.ParseReceipt(data); err == nil {
			if rc.ID == "" {
				t.Fatal("accepted a receipt without an id")
			}
			receiptRoundTrip(t, rc.ID)
		} else if !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Fatalf("receipt error not ErrInvalidMessage: %v", err)
		}
		if msg, err := livekit.ParseCandidateInput(data); err == nil && (msg.Stop || msg.Ready) {
			if msg.Text != "" {
				t.Fatalf("a stop or ready carries text %q", msg.Text)
			}
		} else if err == nil {
			if strings.TrimSpace(msg.Text) == "" || msg.Text != strings.TrimSpace(msg.Text) {
				t.Fatalf("accepted blank or untrimmed text %q", msg.Text)
			}
			if !(msg.Confidence >= 0 && msg.Confidence <= 1) {
				t.Fatalf("accepted confidence %v", msg.Confidence)
			}
		} else if !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Fatalf("error not ErrInvalidMessage: %v", err)
		}
		if cmd, err := livekit.ParseExaminerCommand(data); err == nil {
			switch cmd.Kind {
			case livekit.CommandAdmin:
				if cmd.Text == "" || cmd.Mode.String() == "unknown" {
					t.Fatalf("accepted admin command %+v", cmd)
				}
			case livekit.CommandControl:
				if cmd.Action.String() == "unknown" {
					t.Fatalf("accepted control %+v", cmd)
				}
			case livekit.CommandReady:
			default:
				t.Fatalf("accepted command of kind %v", cmd.Kind)
			}
		} else if !errors.Is(err, livekit.ErrInvalidMessage) {
			t.Fatalf("error not ErrInvalidMessage: %v", err)
		}
	})
}

// receiptRoundTrip checks an id a parser accepted: a receipt can carry it, and the receipt reads
// back as that id.
func receiptRoundTrip(t *testing.T, id string) {
	t.Helper()
	if id == "" {
		return
	}
	data, err := livekit.EncodeReceipt(id)
	if err != nil {
		t.Fatalf("accepted id %q cannot be answered: %v", id, err)
	}
	rc, err := livekit.ParseReceipt(data)
	if err != nil || rc.ID != id || rc.Refused != "" {
		t.Fatalf("receipt of %q reads back as %+v, %v", id, rc, err)
	}
}

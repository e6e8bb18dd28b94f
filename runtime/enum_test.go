package runtime_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// enumCase checks one string enum: every listed value parses back to itself and is Valid; the
// zero value, an unknown word and a near miss parse to the zero value with ErrUnknownValue.
type enumCase struct {
	name   string
	values []string
	parse  func(string) (string, bool, error) // parsed text, parsed.Valid(), error
	zero   func() (string, bool)              // the zero value's text and Valid()
}

func stringEnum[T interface {
	~string
	Valid() bool
	String() string
}](name string, values []T, parse func(string) (T, error)) enumCase {
	var vs []string
	for _, v := range values {
		vs = append(vs, v.String())
	}
	return enumCase{name: name, values: vs,
		parse: func(s string) (string, bool, error) { v, err := parse(s); return string(v), v.Valid(), err },
		zero:  func() (string, bool) { var z T; return z.String(), z.Valid() }}
}

func TestEnumsParseAndUnknown(t *testing.T) {
	cases := []enumCase{
		stringEnum("InputSource", runtime.InputSources, runtime.ParseInputSource),
		stringEnum("Speaker", runtime.Speakers, runtime.ParseSpeaker),
		stringEnum("SpokenSource", runtime.SpokenSources, runtime.ParseSpokenSource),
		stringEnum("CommandSource", runtime.CommandSources, runtime.ParseCommandSource),
		stringEnum("DecisionAction", runtime.DecisionActions, runtime.ParseDecisionAction),
		stringEnum("RecoveryKind", runtime.RecoveryKinds, runtime.ParseRecoveryKind),
		stringEnum("NotAssessedReason", runtime.NotAssessedReasons, runtime.ParseNotAssessedReason),
		stringEnum("AdminMode", runtime.AdminModes, runtime.ParseAdminMode),
		stringEnum("AdminStatus", runtime.AdminStatuses, runtime.ParseAdminStatus),
		stringEnum("ErrorCode", runtime.ErrorCodes, runtime.ParseErrorCode),
		stringEnum("ExitReason", runtime.ExitReasons, runtime.ParseExitReason),
		stringEnum("WarningScope", runtime.WarningScopes, runtime.ParseWarningScope),
		stringEnum("GuardrailAction", runtime.GuardrailActions, runtime.ParseGuardrailAction),
		stringEnum("VariantDraw", runtime.VariantDraws, runtime.ParseVariantDraw),
		stringEnum("SpeechStage", runtime.SpeechStages, runtime.ParseSpeechStage),
		stringEnum("CallKind", runtime.CallKinds, runtime.ParseCallKind),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if z, valid := tc.zero(); z != "" || valid {
				t.Errorf("zero value %q valid=%v, want the unknown \"\"", z, valid)
			}
			seen := map[string]bool{}
			for _, v := range tc.values {
				if v == "" || seen[v] {
					t.Errorf("value %q empty or listed twice", v)
				}
				seen[v] = true
				got, valid, err := tc.parse(v)
				if err != nil || got != v || !valid {
					t.Errorf("parse(%q) = %q valid=%v err=%v", v, got, valid, err)
				}
			}
			for _, bad := range []string{"", "telepathy", strings.ToUpper(tc.values[0]), " " + tc.values[0]} {
				got, valid, err := tc.parse(bad)
				if got != "" || valid || !errors.Is(err, runtime.ErrUnknownValue) {
					t.Errorf("parse(%q) = %q valid=%v err=%v, want the zero value and ErrUnknownValue", bad, got, valid, err)
				}
			}
		})
	}
}

func TestInstructionMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want runtime.AdminMode
	}{{"immediate", runtime.AdminImmediate}, {"queued", runtime.AdminQueued}, {"say", runtime.AdminSay}, {"control", ""}, {"", ""}, {"now", ""}} {
		got, err := runtime.ParseInstructionMode(tc.in)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("ParseInstructionMode(%q) = %q, %v", tc.in, got, err)
		}
		if err != nil && !errors.Is(err, runtime.ErrUnknownValue) {
			t.Errorf("ParseInstructionMode(%q) error %v is not ErrUnknownValue", tc.in, err)
		}
	}
}

func TestControlActionText(t *testing.T) {
	if runtime.ControlUnknown.Valid() || runtime.ControlUnknown.String() != "unknown" {
		t.Errorf("zero control action: %q valid=%v", runtime.ControlUnknown, runtime.ControlUnknown.Valid())
	}
	for _, a := range runtime.ControlActions {
		b, err := json.Marshal(a)
		if err != nil || string(b) != `"`+a.String()+`"` {
			t.Errorf("marshal %v = %s, %v", a, b, err)
		}
		var back runtime.ControlAction
		if err := json.Unmarshal(b, &back); err != nil || back != a {
			t.Errorf("unmarshal %s = %v, %v", b, back, err)
		}
	}
	if _, err := json.Marshal(runtime.ControlUnknown); !errors.Is(err, runtime.ErrInvalidControl) {
		t.Errorf("marshal of the unknown action: %v", err)
	}
	var a runtime.ControlAction
	if err := json.Unmarshal([]byte(`"reboot"`), &a); !errors.Is(err, runtime.ErrInvalidControl) || a != runtime.ControlUnknown {
		t.Errorf("unmarshal of an unknown action: %v, %v", a, err)
	}
}

// storedStreams are event logs as stored and sent: the headless goldens, the session store's
// golden export, the console's fixture, and testdata/stored (every payload type, with values
// from a newer writer this version does not know).
func storedStreams(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"testdata/stored/*.jsonl", "headless/testdata/golden/*.events.jsonl",
		"../sessions/testdata/golden/*.jsonl", "../tui/testdata/events/*.jsonl"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("found only %v", files)
	}
	return files
}

// TestStoredEventsRoundTrip decodes every stored event into its typed payload and encodes it
// again: envelope and payload must come out byte for byte as stored, so typing the fields
// changed nothing on the wire or in the store, and nothing a newer writer wrote is lost.
func TestStoredEventsRoundTrip(t *testing.T) {
	seen := map[runtime.EventType]int{}
	for _, file := range storedStreams(t) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; sc.Scan(); line++ {
			raw := bytes.TrimSpace(sc.Bytes())
			if len(raw) == 0 {
				continue
			}
			var ev runtime.Event
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			p, err := ev.Decode()
			if err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			again, err := runtime.NewEvent(ev.SessionID, ev.Seq, ev.Timestamp, p)
			if err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			out, err := json.Marshal(again)
			if err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			if !bytes.Equal(out, raw) {
				t.Errorf("%s:%d: re-encoded differently\n got %s\nwant %s", file, line, out, raw)
			}
			seen[ev.Event]++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for _, et := range runtime.EventTypes {
		if seen[et] == 0 {
			t.Errorf("no stored %s event round-tripped", et)
		}
	}
}

func storedEvent(t *testing.T, seq int64) runtime.Payload {
	t.Helper()
	return storedEventIn(t, "testdata/stored/enum-values.jsonl", seq)
}

// storedEventIn decodes the event with sequence number seq of a stored stream.
func storedEventIn(t *testing.T, file string, seq int64) runtime.Payload {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var ev runtime.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Seq == seq {
			p, err := ev.Decode()
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatalf("no seq %d", seq)
	return nil
}

// TestStoredUnknownValuesKept: values a newer writer used decode as their text, are not Valid,
// compare unequal to every constant, and are not dropped (the round trip above re-encodes them).
func TestStoredUnknownValuesKept(t *testing.T) {
	seg := storedEvent(t, 5).(*runtime.TranscriptSegmentPayload)
	if seg.Speaker != "narrator" || seg.Speaker.Valid() || seg.Source != "telepathy" || seg.Source.Valid() {
		t.Errorf("segment %+v", seg)
	}
	obs := storedEvent(t, 7).(*runtime.ObservationPayload)
	if obs.Decision.Action.String() != "escalate_to_human" || obs.Decision.Action.Valid() {
		t.Errorf("decision %+v", obs.Decision)
	}
	ack := storedEvent(t, 9).(*runtime.CommandAcknowledgedPayload)
	if ack.Source != "gesture" || ack.Source.Valid() || ack.AwaitingConfirmation() {
		t.Errorf("ack %+v", ack)
	}
	rec := storedEvent(t, 11).(*runtime.RecoveryPayload)
	if rec.Kind != "quantum_retry" || rec.Kind.Valid() {
		t.Errorf("recovery %+v", rec)
	}
	adm := storedEvent(t, 14).(*runtime.AdminInstructionPayload)
	if adm.Mode != "whisper" || adm.Mode.Valid() || adm.Status != "deferred" || adm.Status.Valid() {
		t.Errorf("admin %+v", adm)
	}
	sp := storedEvent(t, 16).(*runtime.SpokenPayload)
	if sp.Source != "hologram" || sp.Source.Valid() {
		t.Errorf("spoken %+v", sp)
	}
	se := storedEvent(t, 18).(*runtime.SystemErrorPayload)
	if se.Code != "llm_quota_exceeded" || se.Code.Valid() || !se.Code.Examiner() {
		t.Errorf("system error %+v", se)
	}
	// The known values of the same log.
	if p := storedEvent(t, 4).(*runtime.TranscriptSegmentPayload); p.Speaker != runtime.SpeakerCandidate || p.Source != runtime.SourceRoom {
		t.Errorf("segment %+v", p)
	}
	if p := storedEvent(t, 13).(*runtime.AdminInstructionPayload); p.Mode != runtime.AdminControl || p.Status != runtime.AdminApplied {
		t.Errorf("admin %+v", p)
	}
}

// TestStoredProseStates: the states read from fixed texts of older logs (which have no field
// for them) are read through the payloads' methods.
func TestStoredProseStates(t *testing.T) {
	if p := storedEvent(t, 2).(*runtime.ExamStatePayload); !p.PausedByCandidate() {
		t.Errorf("candidate pause not recognised: %+v", p)
	}
	if p := storedEvent(t, 1).(*runtime.ExamStatePayload); p.PausedByCandidate() {
		t.Errorf("in_progress read as a candidate pause: %+v", p)
	}
	if p := storedEvent(t, 8).(*runtime.CommandAcknowledgedPayload); !p.AwaitingConfirmation() {
		t.Errorf("awaiting confirmation not recognised: %+v", p)
	}
	for _, p := range []runtime.CommandAcknowledgedPayload{
		{Command: "finish", Accepted: false, Detail: "awaiting confirmation"},
		{Command: "pause", Accepted: true, Detail: "awaiting confirmation"},
		{Command: "finish", Accepted: true, Detail: "confirmed"},
		{Command: "finish", Accepted: true},
	} {
		if p.AwaitingConfirmation() {
			t.Errorf("%+v read as awaiting confirmation", p)
		}
	}
}

// TestResumeAwaitingConfirmation resumes a log that ends on a finish waiting for the
// candidate's "yes" (stored, as always, as the detail's text only): the resumed exam must take
// the next answer as the confirmation. The same log with the ack's detail removed must not.
func TestResumeAwaitingConfirmation(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{CommandDetected: "finish", SpokenText: "Are you sure?"}.String())
	h.say("I want to finish now.")
	events := h.rec.Events()
	last := events[len(events)-1]
	ackAt := -1
	for i, ev := range events {
		if ev.Event == runtime.EventCommandAcknowledged {
			ackAt = i
		}
	}
	if ackAt < 0 || !strings.Contains(string(events[ackAt].Payload), `"detail":"awaiting confirmation"`) {
		t.Fatalf("no awaiting ack in the log (last %s)", last.Payload)
	}
	for _, tc := range []struct {
		name     string
		detail   string
		wantDone bool
	}{{"stored prose", "awaiting confirmation", true}, {"no confirmation pending", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			log := append([]runtime.Event(nil), events...)
			var ack runtime.CommandAcknowledgedPayload
			if err := json.Unmarshal(log[ackAt].Payload, &ack); err != nil {
				t.Fatal(err)
			}
			ack.Detail = tc.detail
			raw, err := json.Marshal(&ack)
			if err != nil {
				t.Fatal(err)
			}
			log[ackAt].Payload = raw
			ex2 := &scriptedExaminer{}
			ex2.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "Go on."}.String())
			c, _ := resumeFrom(t, h.c.Exam(), ex2, h.clock, log)
			if err := c.Start(h.ctx); err != nil {
				t.Fatal(err)
			}
			if err := c.SubmitTurn(h.ctx, runtime.Turn{Text: "Yes."}); err != nil {
				t.Fatal(err)
			}
			if done := c.Snapshot().State == runtime.StateCompleted; done != tc.wantDone {
				t.Fatalf("after yes: state %s, want completed=%v", c.Snapshot().State, tc.wantDone)
			}
		})
	}
}

// FuzzParseEnums: whatever a peer sends, a parse gives either the value spelled exactly so, or
// the zero value and ErrUnknownValue; and JSON keeps the text either way.
func FuzzParseEnums(f *testing.F) {
	for _, s := range []string{"", "candidate", "safety_net", "queued", "control", "llm_retry", "Typed", "\x00", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(name, got string, valid bool, err error) {
			switch {
			case err == nil && (got != s || !valid):
				t.Errorf("%s: parse(%q) = %q valid=%v without error", name, s, got, valid)
			case err != nil && (got != "" || valid || !errors.Is(err, runtime.ErrUnknownValue)):
				t.Errorf("%s: parse(%q) = %q valid=%v err=%v", name, s, got, valid, err)
			}
		}
		sp, err := runtime.ParseSpeaker(s)
		check("speaker", sp.String(), sp.Valid(), err)
		src, err := runtime.ParseInputSource(s)
		check("input source", src.String(), src.Valid(), err)
		ss, err := runtime.ParseSpokenSource(s)
		check("spoken source", ss.String(), ss.Valid(), err)
		cs, err := runtime.ParseCommandSource(s)
		check("command source", cs.String(), cs.Valid(), err)
		da, err := runtime.ParseDecisionAction(s)
		check("decision action", da.String(), da.Valid(), err)
		rk, err := runtime.ParseRecoveryKind(s)
		check("recovery kind", rk.String(), rk.Valid(), err)
		am, err := runtime.ParseAdminMode(s)
		check("admin mode", am.String(), am.Valid(), err)
		as, err := runtime.ParseAdminStatus(s)
		check("admin status", as.String(), as.Valid(), err)
		ec, err := runtime.ParseErrorCode(s)
		check("error code", ec.String(), ec.Valid(), err)
		er, err := runtime.ParseExitReason(s)
		check("exit reason", er.String(), er.Valid(), err)
		ws, err := runtime.ParseWarningScope(s)
		check("warning scope", ws.String(), ws.Valid(), err)
		ga, err := runtime.ParseGuardrailAction(s)
		check("guardrail action", ga.String(), ga.Valid(), err)
		if a, err := runtime.ParseControlAction(s); (err == nil) != (a.Valid() && a.String() == s) {
			t.Errorf("control action: parse(%q) = %v, %v", s, a, err)
		}

		in := runtime.TranscriptSegmentPayload{Speaker: runtime.Speaker(s), Source: runtime.InputSource(s)}
		b, err := json.Marshal(&in)
		if err != nil {
			t.Fatal(err)
		}
		var out runtime.TranscriptSegmentPayload
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		// JSON replaces invalid UTF-8, so only valid text must come back unchanged.
		if utf8.ValidString(s) && (out.Speaker != in.Speaker || out.Source != in.Source) {
			t.Errorf("JSON lost %q: %+v", s, out)
		}
	})
}

// Package eventprint prints the event stream one line per event, as JSON or as a readable
// summary: the one printer of `examtui run --headless` (local and room) and `examtui watch
// --plain`/`--json` (docs/console.md, "Printed events").
package eventprint

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// clock is the readable line's time of day: the millisecond tells apart events of one turn.
const clock = "15:04:05.000"

// Append appends ev as one line ending in "\n": the JSON event envelope, or the readable
// line `SEQ TIME EVENT SUMMARY` (seq right-aligned in four columns, "--" for a report from
// outside the journal, which has seq 0). A readable line goes through textsafe.Line, so nothing
// a terminal would obey reaches it; JSON keeps the text exactly, with every control and
// bidirectional character written as an escape (textsafe.EscapeJSON).
func Append(b []byte, ev runtime.Event, asJSON bool) ([]byte, error) {
	if asJSON {
		data, err := json.Marshal(ev)
		if err != nil {
			return b, fmt.Errorf("encode seq %d: %w", ev.Seq, err)
		}
		return append(append(b, textsafe.EscapeJSON(data)...), '\n'), nil
	}
	seq := fmt.Sprintf("%4d", ev.Seq)
	if ev.Seq == 0 {
		seq = "  --"
	}
	line := fmt.Sprintf("%s %s %-20s %s", seq, ev.Timestamp.Local().Format(clock), ev.Event, Describe(ev))
	return append(append(b, textsafe.Line(line)...), '\n'), nil
}

// Describe is the readable summary of ev: what a person watching needs, the full payload
// being one --json away. An event it does not know (or cannot decode) shows its payload.
func Describe(ev runtime.Event) string {
	p, err := ev.Decode()
	if err != nil {
		return string(ev.Payload)
	}
	// Fields with fixed values go through %s, whatever their Go type (string or typed enum).
	switch p := p.(type) {
	case *runtime.ExamStatePayload:
		// The reason says who paused or resumed ("paused by examiner-ana", "candidate left"),
		// as exam_state.by records it for --json.
		s := p.State.String()
		if p.Previous != "" {
			s = fmt.Sprintf("%s → %s", p.Previous, s)
		}
		if p.Reason != "" {
			s += " (" + p.Reason + ")"
		}
		return s
	case *runtime.CandidatePresencePayload:
		return p.Summary()
	case *runtime.NodeEnteredPayload:
		s := fmt.Sprintf("%s [%s] %d/%d", p.NodeID, p.Kind, p.Progress.CurrentNodeIndex, p.Progress.TotalNodes)
		if p.Variant != "" {
			s += " variant " + p.Variant + " (" + p.VariantDraw.String() + ")"
		}
		if p.Reason != "" {
			s += " after " + p.Reason
		}
		return s
	case *runtime.NodeExitPayload:
		s := fmt.Sprintf("%s %s after %s, %d evidence", p.NodeID, p.Reason, millis(p.ElapsedMs).Round(time.Millisecond), p.EvidenceCount)
		if p.Next != "" {
			s += " → " + p.Next
		}
		return s
	case *runtime.TranscriptSegmentPayload:
		return fmt.Sprintf("%s: %s", p.Speaker, quote(p.Text))
	case *runtime.ObservationPayload:
		s := fmt.Sprintf("turn %d %s", p.Turn, p.Decision.Action)
		if p.Decision.Reason != "" {
			s += " (" + p.Decision.Reason + ")"
		}
		if !p.Valid {
			s += " INVALID " + strings.Join(p.Problems, "; ")
		}
		return s
	case *runtime.EvidenceUpdatePayload:
		if p.Misconception != nil {
			return fmt.Sprintf("misconception in %s", p.NodeID)
		}
		return fmt.Sprintf("%s %s %s (%d/%d)", p.SignalType, p.RubricLevel, quote(p.Excerpt), p.Accepted, p.Required)
	case *runtime.FollowUpIssuedPayload:
		return fmt.Sprintf("%s %d/%d", p.FollowUpType, p.Count, p.Max)
	case *runtime.CommandAcknowledgedPayload:
		s := fmt.Sprintf("%s refused", p.Command)
		if p.Accepted {
			s = fmt.Sprintf("%s accepted", p.Command)
		}
		if p.Detail != "" {
			s += " (" + p.Detail + ")"
		}
		return s
	case *runtime.TimeWarningPayload:
		return fmt.Sprintf("%s %s: %ds left", p.Scope, p.NodeID, p.RemainingSec)
	case *runtime.GuardrailTriggeredPayload:
		return fmt.Sprintf("%s %s: %s → %s", p.Guardrail, p.Action, quote(p.OriginalText), quote(p.ReplacementText))
	case *runtime.RecoveryPayload:
		if p.Kind == runtime.RecoveryNotAssessed {
			return fmt.Sprintf("%s %s %s (%s): %s", p.Kind, p.SegmentID, p.Reason, "turn "+fmt.Sprint(p.Turn), p.Detail)
		}
		return strings.TrimSpace(fmt.Sprintf("%s %s %s", p.Kind, p.SignalType, p.Detail))
	case *runtime.AdminInstructionPayload:
		s := fmt.Sprintf("%s %s %s by %s", p.Mode, p.Status, quote(p.Text), p.Sender)
		if p.Status == runtime.AdminNotActionable {
			s += " (the examiner cannot act on it; nothing was said)"
		}
		return s
	case *runtime.BeatFiredPayload:
		return fmt.Sprintf("%s at %ds: %s", p.Scope, p.AtSec, quote(p.Message))
	case *runtime.SpokenPayload:
		return fmt.Sprintf("%s: %s", p.Source, quote(p.Text))
	case *runtime.SystemErrorPayload:
		return fmt.Sprintf("%s: %s", p.Code, p.Message)
	case *runtime.SpeechUsagePayload:
		if p.Stage == runtime.SpeechSTT {
			return fmt.Sprintf("stt %s: %s s of audio", p.Model, strconv.FormatFloat(p.Seconds, 'f', -1, 64))
		}
		return fmt.Sprintf("%s %s: %d characters", p.Stage, p.Model, p.Characters)
	case *runtime.CallUsagePayload:
		switch {
		case p.Usage == nil:
			return fmt.Sprintf("%s: no usage", p.Call)
		case p.Failed:
			return fmt.Sprintf("%s %s: failed or cancelled (a failed request)", p.Call, p.Usage.Model)
		case !p.Usage.Known():
			return fmt.Sprintf("%s %s: unused, no usage sent", p.Call, p.Usage.Model)
		}
		return fmt.Sprintf("%s %s: unused, %d prompt + %d completion tokens", p.Call, p.Usage.Model, *p.Usage.PromptTokens, *p.Usage.CompletionTokens)
	case *runtime.ContextSummaryPayload:
		return fmt.Sprintf("%s: %d older messages summarised by the model: %s", p.NodeID, p.Messages, quote(p.Summary))
	case *runtime.ExamCompletedPayload:
		return fmt.Sprintf("%s after %s, visited %s", p.State, millis(p.DurationMs).Round(time.Second),
			strings.Join(p.NodesVisited, ", "))
	}
	return string(ev.Payload)
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// quote is said or typed text in a summary: on one line, runs of spaces collapsed, quoted.
func quote(s string) string {
	s = strings.Join(strings.Fields(textsafe.Line(s)), " ")
	if s == "" {
		s = "-"
	}
	return fmt.Sprintf("%q", s)
}

package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// Bounds the exporter applies below the validator's, so exported text stays clearly short.
const (
	exportContentRunes = 280
	reportObservation  = "report_observation"
	// Function names of the mapped controller events (function_call / function_call_output).
	fnTransition = "examtui.transition"
	fnEvidence   = "examtui.evidence"
	fnGuardrail  = "examtui.guardrail"
	// fnTruncated names the marker event that closes a truncated artifact.
	fnTruncated = "examtui.truncated"
	// fnNoTurns names the one event of the artifact of a session that stopped before anything
	// it could list (a process killed before the candidate's first turn).
	fnNoTurns = "examtui.no_turns"
	// statusNoTurns is that marker's status.
	statusNoTurns = "nothing_to_list"
	// ErrorLabelTruncated is the error_label of an artifact cut at its event bound.
	ErrorLabelTruncated = "artifact_truncated"
	// The error labels of an exam that did not complete (also a truncation's exam_outcome).
	errorLabelAborted     = "exam_aborted"
	errorLabelExpired     = "exam_expired"
	errorLabelInterrupted = "session_interrupted"
	errorLabelIncomplete  = "session_incomplete"
	// encodedRedaction replaces a long encoded run (base64, hex, a pasted token) in an excerpt.
	encodedRedaction = "[encoded data removed]"
)

// examOutcomes are the values a truncation's exam_outcome can take: how a whole exam ends.
var examOutcomes = []string{string(OutcomeCompleted), errorLabelAborted, errorLabelExpired, errorLabelInterrupted, errorLabelIncomplete}

// truncatedStatus is the status of the marker that closes a truncated artifact.
func truncatedStatus(dropped int64) string { return fmt.Sprintf("dropped_%d", dropped) }

// Truncation describes what an artifact cut at its event bound left out. It is a top-level
// extension field: consumers of the v1 shape ignore it, validate-artifact checks it.
type Truncation struct {
	KeptEvents    int            `json:"kept_events"`
	DroppedEvents int            `json:"dropped_events"`
	DroppedByType map[string]int `json:"dropped_by_type"`
	// ExamOutcome is how the whole session ended (completed, or the failure label), which the
	// artifact's own outcome cannot claim because the end is not in it.
	ExamOutcome string `json:"exam_outcome"`
}

// Omitted counts what the artifact leaves out by design (an examtui extension field): it is
// evidence, not a transcript, and says so.
type Omitted struct {
	ExaminerLines     int `json:"examiner_lines"`
	CandidateTurns    int `json:"candidate_turns"`
	ContinueDecisions int `json:"continue_decisions"`
}

// RunResultOption configures BuildRunResult.
type RunResultOption func(*runResultConfig)

type runResultConfig struct {
	sdkVersion string
	maxEvents  int
}

// WithSDKVersion records the examtui version as sdk_version_ref ("examtui/<version>").
func WithSDKVersion(v string) RunResultOption {
	return func(c *runResultConfig) { c.sdkVersion = v }
}

// WithMaxEvents lowers the artifact's event bound (at least 2: one event and the truncation
// marker); values outside 2..MaxArtifactEvents are ignored.
func WithMaxEvents(n int) RunResultOption {
	return func(c *runResultConfig) {
		if n >= 2 && n <= MaxArtifactEvents {
			c.maxEvents = n
		}
	}
}

// BuildRunResult maps a session to the small runresult evidence artifact. It is not a
// transcript: it keeps what the controller decided and why.
//   - each observation that decided something → function_call report_observation (arguments
//     by reference to the session's event, never inline) and its function_call_output,
//     status the decision (follow_up, transition, command, end) or invalid; "continue"
//     decisions are only counted (Omitted);
//   - each accepted evidence signal → function_call/function_call_output examtui.evidence
//     (status the signal type), then the candidate's words it cites as a user message: a
//     bounded, cleaned excerpt. Candidate speech appears only this way;
//   - each guardrail interception → function_call/function_call_output
//     examtui.guardrail.<name> (status the action taken); the intercepted text is not copied;
//   - each node exit → function_call/function_call_output examtui.transition (status the
//     reason), and each node entered after the first → agent_handoff to that node.
//
// Examiner lines and candidate turns that no evidence cites are left out and counted in
// Omitted. Text is cleaned
// with textsafe.Line (control and bidirectional characters dropped), secrets are masked and
// long encoded runs removed, so the result passes ValidateArtifact.
//
// The outcome is completed only for an exam that completed; otherwise failed with a short
// error_label (exam_aborted, exam_expired, session_interrupted, session_incomplete). Past the
// event bound the artifact keeps the first events, ends with an examtui.truncated marker,
// says what it dropped in Truncation and is failed with artifact_truncated: its end is not
// the exam's. A session with nothing to map (killed before the candidate's first turn) gives
// an artifact whose one event is an examtui.no_turns marker, failed unless it completed.
func BuildRunResult(sess *Session, events []runtime.Event, opts ...RunResultOption) (*RunResult, error) {
	cfg := runResultConfig{maxEvents: MaxArtifactEvents}
	for _, o := range opts {
		o(&cfg)
	}
	rr := &RunResult{
		Schema: RunResultSchema, Framework: RunResultFramework, Surface: RunResultSurface,
		RuntimeMode: RunResultRuntimeMode,
		TaskLabel:   taskLabel(sess),
		Timestamp:   sess.StartedAt.UTC().Format(time.RFC3339),
		AgentRef:    distinctLabel("examtui:"+sess.ExamID, MaxLabel, "examtui"),
		Events:      []RunEvent{},
	}
	if cfg.sdkVersion != "" {
		rr.SDKVersionRef = cleanLine("examtui/"+cfg.sdkVersion, MaxLabel)
	}
	state := sess.State
	completed := false
	entered := 0
	var all []RunEvent
	var omitted Omitted
	ref := func(seq int64) string {
		return cleanLine(fmt.Sprintf("examtui-session:%s#seq=%d", sess.ID, seq), MaxRef)
	}
	pair := func(name string, seq int64, status string) {
		all = append(all,
			RunEvent{Type: RunEventFunctionCall, Name: name, ArgumentsRef: ref(seq)},
			RunEvent{Type: RunEventFunctionCallOutput, Name: name, Status: status})
	}
	for _, ev := range events {
		p, err := ev.Decode()
		if err != nil {
			return nil, fmt.Errorf("runresult %s: %w", sess.ID, err)
		}
		switch p := p.(type) {
		case *runtime.ExamStatePayload:
			state = p.State
		case *runtime.ExamCompletedPayload:
			completed = true
			if p.State != "" {
				state = p.State
			}
		case *runtime.NodeEnteredPayload:
			entered++
			if entered > 1 {
				all = append(all, RunEvent{Type: RunEventAgentHandoff, NewAgent: distinctLabel(p.NodeID, MaxLabel, "node")})
			}
		case *runtime.NodeExitPayload:
			pair(fnTransition, ev.Seq, labelOr(p.Reason.String(), MaxStatus, "unknown"))
		case *runtime.ObservationPayload:
			if p.Valid && p.Decision.Action == runtime.DecisionContinue {
				// Nothing was decided: counted, not listed.
				omitted.ContinueDecisions++
				continue
			}
			status := "invalid"
			if p.Valid {
				status = labelOr(p.Decision.Action.String(), MaxStatus, "ok")
			}
			pair(reportObservation, ev.Seq, status)
		case *runtime.SpokenPayload:
			omitted.ExaminerLines++
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == runtime.SpeakerCandidate && p.IsFinal {
				omitted.CandidateTurns++
			}
		case *runtime.EvidenceUpdatePayload:
			pair(fnEvidence, ev.Seq, labelOr(p.SignalType, MaxStatus, "signal"))
			if c := excerpt(p.Excerpt); c != "" {
				all = append(all, RunEvent{Type: RunEventMessage, Role: "user", Content: c})
			}
		case *runtime.GuardrailTriggeredPayload:
			name := fnGuardrail
			if g := functionName(p.Guardrail); g != "" {
				name = strings.TrimRight((fnGuardrail + "." + g)[:min(len(fnGuardrail)+1+len(g), MaxLabel)], "_.-")
			}
			pair(name, ev.Seq, labelOr(p.Action.String(), MaxStatus, "triggered"))
		}
	}
	rr.Omitted = &omitted
	if len(all) == 0 {
		// The artifact needs at least one event, and inventing an observation would not be
		// honest: its one event is a marker that says there was nothing to list.
		all = []RunEvent{{Type: RunEventFunctionCallOutput, Name: fnNoTurns, Status: statusNoTurns}}
	}
	switch {
	case state == runtime.StateCompleted && (completed || !sess.EndedAt.IsZero()):
		rr.Outcome = OutcomeCompleted
	case state == runtime.StateAborted:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, errorLabelAborted
	case state == runtime.StateExpired:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, errorLabelExpired
	case sess.Interrupted:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, errorLabelInterrupted
	default:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, errorLabelIncomplete
	}
	if len(all) <= cfg.maxEvents {
		rr.Events = all
		return rr, nil
	}
	keep := cfg.maxEvents - 1
	tr := &Truncation{KeptEvents: keep, DroppedEvents: len(all) - keep, DroppedByType: map[string]int{}, ExamOutcome: string(rr.Outcome)}
	if rr.ErrorLabel != "" {
		tr.ExamOutcome = rr.ErrorLabel
	}
	for _, e := range all[keep:] {
		tr.DroppedByType[string(e.Type)]++
	}
	rr.Events = append(all[:keep:keep], RunEvent{Type: RunEventFunctionCallOutput, Name: fnTruncated,
		Status: truncatedStatus(int64(tr.DroppedEvents))})
	rr.Outcome, rr.ErrorLabel, rr.Truncation = OutcomeFailed, ErrorLabelTruncated, tr
	return rr, nil
}

func taskLabel(sess *Session) string {
	label := sess.Title
	if label == "" {
		label = sess.ExamID
	}
	if label = cleanLine(label, MaxTaskLabel); label == "" {
		label = "oral exam"
	}
	return label
}

// encodedRun is a run of base64/hex-like characters long enough not to be a word. The
// exporter removes runs well below the validator's bound (200): an excerpt may have been cut
// inside a longer token, and what is left of it is no more evidence than the whole.
// The validator refuses such a run in a message's content with the same pattern.
var encodedRun = regexp.MustCompile(`[A-Za-z0-9+/=_\-]{` + strconv.Itoa(encodedRunMin) + `,}`)

// encodedRunMin is the shortest run of base64/hex-like characters read as encoded data.
const encodedRunMin = 40

// excerpt is a candidate's words as the artifact may carry them: one cleaned line, secrets
// masked, encoded runs removed, at most exportContentRunes.
func excerpt(s string) string {
	s = encodedRun.ReplaceAllString(textsafe.Line(s), encodedRedaction)
	return cleanLine(s, exportContentRunes)
}

// cleanLine drops control and bidirectional characters, masks secrets, folds whitespace and
// cuts to n runes.
func cleanLine(s string, n int) string {
	return boundedLine(textsafe.MaskSecrets(textsafe.Line(s)), n)
}

// labelOr is a bounded single-line label, or def when nothing is left of s.
func labelOr(s string, n int, def string) string {
	if s = cleanLine(s, n); s != "" {
		return s
	}
	return def
}

// distinctLabel is labelOr for a label that names one thing among others (a node, an exam):
// one too long to fit keeps its start and ends in "~" and 8 hex digits of a digest of the
// whole, so two long ids that share their first n runes still get different labels.
func distinctLabel(s string, n int, def string) string {
	if full := labelOr(s, 1<<20, def); utf8.RuneCountInString(full) <= n {
		return full
	}
	sum := sha256.Sum256([]byte(s))
	tag := "~" + hex.EncodeToString(sum[:4])
	head := []rune(cleanLine(s, n))
	head = head[:n-len(tag)]
	return strings.TrimRight(string(head), " ") + tag
}

// functionName keeps the characters a function name may hold (ASCII only, so it can be cut
// by bytes); "" when what is left looks like a secret.
func functionName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, textsafe.Line(s))
	s = strings.Trim(s, "_.-")
	// A name that is or holds a secret (or becomes one once its spaces are underscores) is
	// not a name worth keeping: the caller falls back to its generic one.
	if textsafe.MaskSecrets(s) != s {
		return ""
	}
	return s
}

// boundedLine folds whitespace (newlines included) to single spaces and cuts to n runes.
func boundedLine(s string, n int) string {
	return truncateRunes(strings.Join(strings.Fields(s), " "), n)
}

package sessions

import (
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// Bounds the exporter applies below the validator's, so exported text stays clearly short.
const (
	exportContentRunes = 280
	reportObservation  = "report_observation"
)

// RunResultOption configures BuildRunResult.
type RunResultOption func(*runResultConfig)

type runResultConfig struct {
	sdkVersion string
}

// WithSDKVersion records the examtui version as sdk_version_ref ("examtui/<version>").
func WithSDKVersion(v string) RunResultOption {
	return func(c *runResultConfig) { c.sdkVersion = v }
}

// BuildRunResult maps a session to the bounded runresult artifact:
//   - spoken examiner lines → message (assistant), final candidate segments → message (user),
//     each cut to a short single line;
//   - each observation → function_call report_observation (arguments by reference to the
//     session's event, never inline) and its function_call_output (status ok | invalid);
//   - each node entered after the first → agent_handoff to that node.
//
// The outcome is completed only for an exam that completed; otherwise failed with a short
// error_label (exam_aborted, exam_expired, session_interrupted, session_incomplete). A session
// with nothing to map gives ErrNothingToExport. Events past MaxArtifactEvents are left out, keeping the artifact bounded.
func BuildRunResult(sess *Session, events []runtime.Event, opts ...RunResultOption) (*RunResult, error) {
	var cfg runResultConfig
	for _, o := range opts {
		o(&cfg)
	}
	rr := &RunResult{
		Schema: RunResultSchema, Framework: RunResultFramework, Surface: RunResultSurface,
		RuntimeMode: RunResultRuntimeMode,
		TaskLabel:   taskLabel(sess),
		Timestamp:   sess.StartedAt.UTC().Format(time.RFC3339),
		AgentRef:    boundedLine("examtui:"+sess.ExamID, MaxLabel),
		Events:      []RunEvent{},
	}
	if cfg.sdkVersion != "" {
		rr.SDKVersionRef = boundedLine("examtui/"+cfg.sdkVersion, MaxLabel)
	}
	state := sess.State
	completed := false
	entered := 0
	push := func(e RunEvent) {
		if len(rr.Events) < MaxArtifactEvents {
			rr.Events = append(rr.Events, e)
		}
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
				push(RunEvent{Type: RunEventAgentHandoff, NewAgent: boundedLine(p.NodeID, MaxLabel)})
			}
		case *runtime.SpokenPayload:
			if c := boundedLine(RedactString(p.Text), exportContentRunes); c != "" {
				push(RunEvent{Type: RunEventMessage, Role: "assistant", Content: c})
			}
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == "candidate" && p.IsFinal {
				if c := boundedLine(RedactString(p.Text), exportContentRunes); c != "" {
					push(RunEvent{Type: RunEventMessage, Role: "user", Content: c})
				}
			}
		case *runtime.ObservationPayload:
			status := "ok"
			if !p.Valid {
				status = "invalid"
			}
			push(RunEvent{Type: RunEventFunctionCall, Name: reportObservation,
				ArgumentsRef: boundedLine(fmt.Sprintf("examtui-session:%s#seq=%d", sess.ID, ev.Seq), MaxRef)})
			push(RunEvent{Type: RunEventFunctionCallOutput, Name: reportObservation, Status: status})
		}
	}
	switch {
	case len(rr.Events) == 0:
		// The artifact needs at least one observed event, and inventing one would not be honest.
		return nil, fmt.Errorf("runresult %s: %w", sess.ID, ErrNothingToExport)
	case state == runtime.StateCompleted && (completed || !sess.EndedAt.IsZero()):
		rr.Outcome = OutcomeCompleted
	case state == runtime.StateAborted:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, "exam_aborted"
	case state == runtime.StateExpired:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, "exam_expired"
	case sess.Interrupted:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, "session_interrupted"
	default:
		rr.Outcome, rr.ErrorLabel = OutcomeFailed, "session_incomplete"
	}
	return rr, nil
}

func taskLabel(sess *Session) string {
	label := sess.Title
	if label == "" {
		label = sess.ExamID
	}
	if label = boundedLine(RedactString(label), MaxTaskLabel); label == "" {
		label = "oral exam"
	}
	return label
}

// boundedLine folds whitespace (newlines included) to single spaces and cuts to n runes.
func boundedLine(s string, n int) string {
	return truncateRunes(strings.Join(strings.Fields(s), " "), n)
}

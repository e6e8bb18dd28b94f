package sessions

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
)

// Summary is a session read back from its events: what the examiner needs to review an exam.
type Summary struct {
	Session     *Session
	Nodes       []*NodeVisit
	Guardrails  []GuardrailRecord
	Commands    []CommandRecord
	Admin       []AdminRecord
	Recoveries  []RecoveryRecord
	Errors      []ErrorRecord
	Presence    []PresenceRecord // the candidate joining, leaving, rejoining; pauses and resumes (presence.go)
	TimeWarns   int
	Beats       int
	Turns       int // observations
	Invalid     int // observations that failed validation
	Transcript  []TranscriptLine
	Latency     LatencyStats
	Usage       usage.Totals                  // the examiner calls' tokens, per model, from the observations
	Completed   *runtime.ExamCompletedPayload // nil when the exam did not complete
	FinalState  runtime.ExamState
	StartedAt   time.Time // first event
	LastEventAt time.Time
}

// NodeVisit is one stay in a node.
type NodeVisit struct {
	NodeID    string
	Kind      string
	Variant   string // the drawn variant of a node with variants
	EnteredAt time.Time
	ExitedAt  time.Time // zero if the session stopped inside the node
	Reason    runtime.ExitReason
	Next      string
	ElapsedMs int64
	FollowUps int
	Required  int
	Coverage  float64
	Evidence  []EvidenceRecord
}

// EvidenceRecord is one accepted signal.
type EvidenceRecord struct {
	Seq           int64
	At            time.Time
	SignalType    string
	RubricLevel   string
	Excerpt       string
	Confidence    float64
	STT           runtime.STTSummary
	Transversal   bool
	OtherNode     bool // another node's signal, heard in this one
	Misconception *runtime.Misconception
}

// GuardrailRecord is one interception of spoken text.
type GuardrailRecord struct {
	Seq                           int64
	At                            time.Time
	NodeID, Guardrail             string
	Action                        runtime.GuardrailAction
	OriginalText, ReplacementText string
}

// CommandRecord is one candidate command.
type CommandRecord struct {
	Seq             int64
	At              time.Time
	NodeID, Command string
	Source          runtime.CommandSource
	Accepted        bool
	Detail          string
}

// AdminRecord is one examiner instruction.
type AdminRecord struct {
	Seq                int64
	At                 time.Time
	Mode               runtime.AdminMode
	Text, Sender, Node string
	Status             runtime.AdminStatus
}

// RecoveryRecord is one recovery event.
type RecoveryRecord struct {
	Seq                int64
	At                 time.Time
	Kind               runtime.RecoveryKind
	NodeID, SignalType string
	Detail             string
}

// ErrorRecord is one system error the exam survived.
type ErrorRecord struct {
	Seq             int64
	At              time.Time
	Code            string // a system_error code, or examiner_switched
	Message, NodeID string
}

// TranscriptLine is one final transcript segment or one spoken examiner line.
type TranscriptLine struct {
	Seq        int64
	At         time.Time
	Speaker    runtime.Speaker
	NodeID     string
	Text       string
	Confidence float64 // candidate segments only
}

// LatencyStats are per-turn latency figures in milliseconds.
type LatencyStats struct {
	Total, EndpointingMs, STT, LLMFirstToken, LLMComplete, Filters, TTSFirstByte Figure
}

// Figure summarises one latency stage over the turns that measured it.
type Figure struct {
	N             int
	P50, P95, Max float64
}

func figure(xs []float64) Figure {
	if len(xs) == 0 {
		return Figure{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Figure{N: len(s), P50: pct(0.50), P95: pct(0.95), Max: s[len(s)-1]}
}

// Summarize reads a session's events. Events it cannot decode are reported as errors: a
// summary that silently skips part of the record would mislead.
func Summarize(sess *Session, events []runtime.Event) (*Summary, error) {
	sum := &Summary{Session: sess, FinalState: sess.State}
	var cur *NodeVisit
	examinerLines := examinerDedup{}
	var total, endp, stt, first, complete, filters, tts []float64
	add := func(xs *[]float64, v float64) {
		if v > 0 {
			*xs = append(*xs, v)
		}
	}
	for i, ev := range events {
		if i == 0 {
			sum.StartedAt = ev.Timestamp
		}
		sum.LastEventAt = ev.Timestamp
		p, err := ev.Decode()
		if err != nil {
			return nil, fmt.Errorf("summarize %s: %w", sess.ID, err)
		}
		if r, ok := presenceRecord(ev, p); ok {
			sum.Presence = append(sum.Presence, r)
		}
		sum.Usage.AddPayload(p)
		switch p := p.(type) {
		case *runtime.ExamStatePayload:
			sum.FinalState = p.State
		case *runtime.NodeEnteredPayload:
			cur = &NodeVisit{NodeID: p.NodeID, Kind: p.Kind, Variant: p.Variant, EnteredAt: ev.Timestamp}
			sum.Nodes = append(sum.Nodes, cur)
		case *runtime.NodeExitPayload:
			if v := visit(sum, cur, p.NodeID, ev.Timestamp); v != nil {
				v.ExitedAt, v.Reason, v.Next, v.ElapsedMs, v.FollowUps = ev.Timestamp, p.Reason, p.Next, p.ElapsedMs, p.FollowUps
			}
		case *runtime.TranscriptSegmentPayload:
			if p.IsFinal && p.Text != "" && !(p.Speaker == runtime.SpeakerExaminer && examinerLines.seen(lineFromSegment, p.NodeID, p.Text)) {
				sum.Transcript = append(sum.Transcript, TranscriptLine{Seq: ev.Seq, At: ev.Timestamp, Speaker: p.Speaker,
					NodeID: p.NodeID, Text: p.Text, Confidence: p.Confidence})
			}
		case *runtime.SpokenPayload:
			if !examinerLines.seen(lineFromSpoken, p.NodeID, p.Text) {
				sum.Transcript = append(sum.Transcript, TranscriptLine{Seq: ev.Seq, At: ev.Timestamp, Speaker: runtime.SpeakerExaminer,
					NodeID: p.NodeID, Text: p.Text})
			}
		case *runtime.ObservationPayload:
			sum.Turns++
			if !p.Valid {
				sum.Invalid++
			}
			l := p.Latency
			add(&total, l.TotalMs)
			add(&endp, l.EndpointingMs)
			add(&stt, l.STTMs)
			add(&first, l.LLMFirstTokenMs)
			add(&complete, l.LLMCompleteMs)
			add(&filters, l.FiltersMs)
			add(&tts, l.TTSFirstByteMs)
		case *runtime.EvidenceUpdatePayload:
			if v := visit(sum, cur, p.NodeID, ev.Timestamp); v != nil {
				v.Evidence = append(v.Evidence, EvidenceRecord{Seq: ev.Seq, At: ev.Timestamp, SignalType: p.SignalType,
					RubricLevel: p.RubricLevel, Excerpt: p.Excerpt, Confidence: p.Confidence, STT: p.STTConfidence,
					Transversal: p.Transversal, OtherNode: p.OtherNode, Misconception: p.Misconception})
				v.Coverage, v.Required = p.Coverage, p.Required
			}
		case *runtime.FollowUpIssuedPayload:
			if v := visit(sum, cur, p.NodeID, ev.Timestamp); v != nil {
				v.FollowUps = max(v.FollowUps, p.Count)
			}
		case *runtime.CommandAcknowledgedPayload:
			sum.Commands = append(sum.Commands, CommandRecord{Seq: ev.Seq, At: ev.Timestamp, NodeID: p.NodeID,
				Command: p.Command, Source: p.Source, Accepted: p.Accepted, Detail: p.Detail})
		case *runtime.TimeWarningPayload:
			sum.TimeWarns++
		case *runtime.GuardrailTriggeredPayload:
			sum.Guardrails = append(sum.Guardrails, GuardrailRecord{Seq: ev.Seq, At: ev.Timestamp, NodeID: p.NodeID,
				Guardrail: p.Guardrail, Action: p.Action, OriginalText: p.OriginalText, ReplacementText: p.ReplacementText})
		case *runtime.RecoveryPayload:
			sum.Recoveries = append(sum.Recoveries, RecoveryRecord{Seq: ev.Seq, At: ev.Timestamp, Kind: p.Kind,
				NodeID: p.NodeID, SignalType: p.SignalType, Detail: p.Detail})
		case *runtime.AdminInstructionPayload:
			sum.Admin = append(sum.Admin, AdminRecord{Seq: ev.Seq, At: ev.Timestamp, Mode: p.Mode, Text: p.Text,
				Sender: p.Sender, Status: p.Status, Node: p.NodeID})
		case *runtime.BeatFiredPayload:
			sum.Beats++
		case *runtime.SystemErrorPayload:
			sum.Errors = append(sum.Errors, ErrorRecord{Seq: ev.Seq, At: ev.Timestamp, Code: p.Code.String(), Message: p.Message, NodeID: p.NodeID})
		case *runtime.ExaminerSwitchedPayload:
			sum.Errors = append(sum.Errors, examinerSwitchedRecord(ev, p))
		case *runtime.ExamCompletedPayload:
			sum.Completed = p
			if p.State != "" {
				sum.FinalState = p.State
			}
			for _, v := range sum.Nodes {
				if c, ok := p.Coverage[v.NodeID]; ok {
					v.Coverage = c
				}
			}
		}
	}
	sum.Latency = LatencyStats{Total: figure(total), EndpointingMs: figure(endp), STT: figure(stt),
		LLMFirstToken: figure(first), LLMComplete: figure(complete), Filters: figure(filters), TTSFirstByte: figure(tts)}
	return sum, nil
}

// visit finds the visit an event about nodeID belongs to: the current one when it matches,
// else the latest visit of that node, else a new visit (an event stream that starts mid-node).
func visit(sum *Summary, cur *NodeVisit, nodeID string, at time.Time) *NodeVisit {
	if nodeID == "" {
		return cur
	}
	if cur != nil && cur.NodeID == nodeID {
		return cur
	}
	for i := len(sum.Nodes) - 1; i >= 0; i-- {
		if sum.Nodes[i].NodeID == nodeID {
			return sum.Nodes[i]
		}
	}
	v := &NodeVisit{NodeID: nodeID, EnteredAt: at}
	sum.Nodes = append(sum.Nodes, v)
	return v
}

// EvidenceTotal counts accepted signals across nodes.
func (s *Summary) EvidenceTotal() int {
	n := 0
	for _, v := range s.Nodes {
		n += len(v.Evidence)
	}
	return n
}

// SignalCounts counts accepted signals by type, sorted by type.
func (s *Summary) SignalCounts() []SignalCount {
	m := map[string]int{}
	for _, v := range s.Nodes {
		for _, e := range v.Evidence {
			m[e.SignalType]++
		}
	}
	out := make([]SignalCount, 0, len(m))
	for k, n := range m {
		out = append(out, SignalCount{k, n})
	}
	slices.SortFunc(out, func(a, b SignalCount) int { return cmp.Compare(a.SignalType, b.SignalType) })
	return out
}

// SignalCount is a number of accepted signals of one type.
type SignalCount struct {
	SignalType string
	Count      int
}

// Summary reads a session and summarises it.
func (s *Store) Summary(ctx context.Context, id string) (*Summary, error) {
	sess, events, err := s.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	return Summarize(sess, events)
}

// The controller records each examiner line twice: a spoken event and the examiner's
// transcript segment. examinerDedup pairs them so the transcript shows the line once, whichever
// of the two comes first, while a line said twice (a repeat) still shows twice.
type examinerDedup map[examinerLineKey]int

type examinerLineKey struct {
	node, text string
}

const (
	lineFromSpoken  = 1
	lineFromSegment = -1
)

// seen reports whether the line is the second record of one already shown; otherwise it notes
// the line as waiting for its pair.
func (d examinerDedup) seen(from int, node, text string) bool {
	k := examinerLineKey{node, strings.TrimSpace(text)}
	if n := d[k]; n*from < 0 { // an unpaired record from the other source
		d[k] = n + from
		return true
	}
	d[k] += from
	return false
}

package marking

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// Proposal is the rule's proposal for one session: a level per criterion of the scheme, with
// the evidence it rests on, and the total and result those levels give.
type Proposal struct {
	ExamID    string              `json:"examId"`
	SessionID string              `json:"sessionId"`
	Criteria  []CriterionProposal `json:"criteria"`
	Result    Result              `json:"result"`
}

// CriterionProposal is the rule's proposal for one criterion.
type CriterionProposal struct {
	Criterion string `json:"criterion"`
	Title     string `json:"title"`
	// Level is the proposed level, spec.NoLevel when nothing counted.
	Level    string `json:"level"`
	Marks    int    `json:"marks"`
	MaxMarks int    `json:"maxMarks"`
	// Reason says in one sentence why the rule gave Level.
	Reason   string     `json:"reason"`
	Evidence []Evidence `json:"evidence"`
	// Gaps are the criterion's signals never evidenced in the session.
	Gaps           []string        `json:"gaps"`
	Misconceptions []Misconception `json:"misconceptions"`
}

// Evidence is one accepted signal of the ledger, linked to the candidate's transcript turn it
// came from, and what the rule made of it.
type Evidence struct {
	Seq        int64  `json:"seq"` // the evidence_update event
	NodeID     string `json:"nodeId"`
	Signal     string `json:"signal"`
	Quote      string `json:"quote"`
	SegmentID  string `json:"segmentId,omitempty"` // the candidate's turn it rests on
	SegmentSeq int64  `json:"segmentSeq,omitempty"`
	// Level is the rubric level the examiner reported ("" when none: read as the lowest).
	Level      string  `json:"level,omitempty"`
	Confidence float64 `json:"confidence"`
	// ScaffoldingIntensity (0–3) and ScaffoldingEffective are the help that preceded it.
	ScaffoldingIntensity *int  `json:"scaffoldingIntensity,omitempty"`
	ScaffoldingEffective *bool `json:"scaffoldingEffective,omitempty"`
	// Counted is whether the rule counted it, CountedAs the level it counted at (after the
	// scaffolding cap), Note why it was not counted or was demoted.
	Counted   bool   `json:"counted"`
	CountedAs string `json:"countedAs,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Misconception is one misconception the examiner recorded in a node the criterion's signals
// are assessed in.
type Misconception struct {
	Seq           int64  `json:"seq"`
	NodeID        string `json:"nodeId"`
	SegmentID     string `json:"segmentId,omitempty"`
	SegmentSeq    int64  `json:"segmentSeq,omitempty"`
	Concept       string `json:"concept"`
	Misconception string `json:"misconception"`
	Correction    string `json:"correction,omitempty"`
}

// Result is the total of a set of levels and what it earns.
type Result struct {
	Total    int  `json:"total"`
	MaxTotal int  `json:"maxTotal"`
	PassMark *int `json:"passMark,omitempty"`
	// Passed is set only when the scheme has a pass mark.
	Passed *bool  `json:"passed,omitempty"`
	Grade  string `json:"grade,omitempty"`
}

// ResultOf is the result of a total under the scheme.
func ResultOf(m *spec.CompiledMarking, total int) Result {
	r := Result{Total: total, MaxTotal: m.MaxTotal, PassMark: m.PassMark, Grade: m.Grade(total)}
	if m.PassMark != nil {
		p := total >= *m.PassMark
		r.Passed = &p
	}
	return r
}

var examinerSpeaker = []byte(`"speaker":"` + runtime.SpeakerExaminer.String() + `"`)

// segment is the candidate's latest final turn, which the following evidence rests on.
type segment struct {
	id  string
	seq int64
}

// ledger is the evidence and misconceptions of a session's events, each linked to its turn.
type ledger struct {
	evidence       []Evidence
	misconceptions []Misconception
}

// readLedger collects the accepted signals and misconceptions from a session's events. An
// evidence_update follows the candidate segment it was observed in (the controller emits it
// while deciding that turn), so each is linked to the latest final candidate segment.
func readLedger(events []runtime.Event) (ledger, error) {
	var l ledger
	var last segment
	for _, ev := range events {
		switch ev.Event {
		case runtime.EventTranscriptSegment:
			// Only the candidate's segments matter, and of them only the id: the text is never
			// decoded, and the examiner's segments (half of them) are passed over without
			// decoding. A quote inside a JSON string is escaped, so these bare bytes can only
			// be the payload's own speaker field; without them the payload is decoded.
			if bytes.Contains(ev.Payload, examinerSpeaker) {
				continue
			}
			var ts struct {
				SegmentID string          `json:"segmentId"`
				Speaker   runtime.Speaker `json:"speaker"`
				IsFinal   bool            `json:"isFinal"`
			}
			if err := json.Unmarshal(ev.Payload, &ts); err != nil {
				return l, fmt.Errorf("seq %d: decode transcript_segment: %w", ev.Seq, err)
			}
			if ts.Speaker == runtime.SpeakerCandidate && ts.IsFinal {
				last = segment{id: ts.SegmentID, seq: ev.Seq}
			}
		case runtime.EventEvidenceUpdate:
			p, err := ev.Decode()
			if err != nil {
				return l, fmt.Errorf("seq %d: %w", ev.Seq, err)
			}
			eu := p.(*runtime.EvidenceUpdatePayload)
			if eu.Misconception != nil {
				l.misconceptions = append(l.misconceptions, Misconception{Seq: ev.Seq, NodeID: eu.NodeID, SegmentID: last.id,
					SegmentSeq: last.seq, Concept: eu.Misconception.Concept, Misconception: eu.Misconception.Misconception,
					Correction: eu.Misconception.Correction})
				continue
			}
			l.evidence = append(l.evidence, Evidence{Seq: ev.Seq, NodeID: eu.NodeID, Signal: eu.SignalType, Quote: eu.Excerpt,
				SegmentID: last.id, SegmentSeq: last.seq, Level: eu.RubricLevel, Confidence: eu.Confidence,
				ScaffoldingIntensity: eu.ScaffoldingIntensity, ScaffoldingEffective: eu.ScaffoldingEffective})
		}
	}
	return l, nil
}

// Propose applies the scheme's rule to a session's events (docs/marking.md, "The rule"):
// for each criterion, the highest level with at least rule.minSignals counted signals at or
// above it, where a signal counts when it was heard in a node the criterion counts (any node,
// unless the criterion names its nodes), its confidence is at least rule.minConfidence, at its
// reported level (the lowest when it reported none), demoted by rule.scaffolding when it
// followed heavy help. The same events always give the same proposal.
func Propose(exam *spec.Exam, events []runtime.Event) (*Proposal, error) {
	if exam == nil || exam.Marking == nil {
		return nil, ErrNoScheme
	}
	l, err := readLedger(events)
	if err != nil {
		return nil, fmt.Errorf("read the ledger: %w", err)
	}
	p := &Proposal{ExamID: exam.ID}
	if len(events) > 0 {
		p.SessionID = events[0].SessionID
	}
	total := 0
	for i := range exam.Marking.Criteria {
		cp := proposeCriterion(exam, &exam.Marking.Criteria[i], l)
		total += cp.Marks
		p.Criteria = append(p.Criteria, cp)
	}
	p.Result = ResultOf(exam.Marking, total)
	return p, nil
}

func proposeCriterion(exam *spec.Exam, c *spec.CompiledCriterion, l ledger) CriterionProposal {
	rule := exam.Marking.Rule
	cp := CriterionProposal{Criterion: c.ID, Title: c.Title, MaxMarks: c.Marks(c.Levels[len(c.Levels)-1].Name),
		Evidence: []Evidence{}, Gaps: []string{}, Misconceptions: []Misconception{}}
	seen := map[string]bool{}
	var ranks []int // counted ranks
	for _, e := range l.evidence {
		if !slices.Contains(c.Signals, e.Signal) {
			continue
		}
		rank := 1
		if e.Level != "" {
			rank = c.Rank(e.Level)
		}
		heardHere := c.CountsIn(e.NodeID)
		if heardHere {
			seen[e.Signal] = true
		}
		switch {
		case !heardHere:
			e.Note = fmt.Sprintf("heard in %s; the criterion counts only %s", e.NodeID, strings.Join(c.Nodes, ", "))
		case rank < 0:
			e.Note = fmt.Sprintf("level %q is not a level of this criterion", e.Level)
		case e.Confidence < rule.MinConfidence:
			e.Note = fmt.Sprintf("confidence %.2f is below %.2f", e.Confidence, rule.MinConfidence)
		default:
			if rule.ScaffoldingDemote > 0 && e.ScaffoldingIntensity != nil && *e.ScaffoldingIntensity >= rule.ScaffoldingFrom {
				rank = max(0, rank-rule.ScaffoldingDemote)
				e.Note = fmt.Sprintf("scaffolding intensity %d: counts %d level(s) lower", *e.ScaffoldingIntensity, rule.ScaffoldingDemote)
			}
			e.Counted = rank > 0
			e.CountedAs = levelName(c, rank)
			if rank > 0 {
				ranks = append(ranks, rank)
			}
		}
		cp.Evidence = append(cp.Evidence, e)
	}
	for _, s := range c.Signals {
		if !seen[s] {
			cp.Gaps = append(cp.Gaps, s)
		}
	}
	nodes := nodesAssessing(exam, c)
	for _, m := range l.misconceptions {
		if nodes[m.NodeID] {
			cp.Misconceptions = append(cp.Misconceptions, m)
		}
	}
	// The highest rank r with at least MinSignals counted ranks ≥ r is the MinSignals-th
	// largest counted rank.
	slices.SortFunc(ranks, func(a, b int) int { return b - a })
	rank := 0
	if len(ranks) >= rule.MinSignals {
		rank = ranks[rule.MinSignals-1]
	}
	cp.Level = levelName(c, rank)
	cp.Marks = c.Marks(cp.Level)
	cp.Reason = reason(c, rule, rank, len(ranks), len(cp.Evidence))
	return cp
}

func levelName(c *spec.CompiledCriterion, rank int) string {
	if rank <= 0 {
		return spec.NoLevel
	}
	return c.Levels[rank-1].Name
}

func reason(c *spec.CompiledCriterion, rule spec.ResolvedMarkingRule, rank, counted, seen int) string {
	need := "1 counted signal"
	if rule.MinSignals > 1 {
		need = fmt.Sprintf("%d counted signals", rule.MinSignals)
	}
	switch {
	case seen == 0:
		return fmt.Sprintf("no evidence for %s", strings.Join(c.Signals, ", "))
	case rank == 0:
		return fmt.Sprintf("%d signal(s), %d counted: fewer than the %s the lowest level needs", seen, counted, need)
	}
	return fmt.Sprintf("%d signal(s), %d counted: %s at or above %s", seen, counted, need, c.Levels[rank-1].Name)
}

// nodesAssessing is the set of nodes whose misconceptions bear on the criterion: the nodes it
// is restricted to, else those that listen for any of its signals.
func nodesAssessing(exam *spec.Exam, c *spec.CompiledCriterion) map[string]bool {
	out := map[string]bool{}
	if len(c.Nodes) > 0 {
		for _, n := range c.Nodes {
			out[n] = true
		}
		return out
	}
	for i := range exam.Nodes {
		n := &exam.Nodes[i]
		for _, s := range c.Signals {
			if n.ListensFor(s) {
				out[n.NodeID] = true
			}
		}
	}
	return out
}

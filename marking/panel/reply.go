package panel

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// Mark is one member's accepted mark on one criterion.
type Mark struct {
	Criterion string   `json:"criterion"`
	Level     string   `json:"level"`
	Rationale string   `json:"rationale"`
	Segments  []string `json:"segments"`
}

// Rejected is a mark that was not accepted, and why.
type Rejected struct {
	Round     Round     `json:"round"`
	Criterion string    `json:"criterion"`
	Level     string    `json:"level,omitempty"`
	Reason    Rejection `json:"reason"`
	Detail    string    `json:"detail"`
}

// callArguments finds the report_marks call of a reply. A server that does not enforce the
// tool may answer with the arguments object as text; it is taken when it is the whole reply.
func callArguments(resp openai.ChatCompletionResponse) (string, error) {
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("%w: the reply has no choices", ErrNoCall)
	}
	msg := resp.Choices[0].Message
	for _, tc := range msg.ToolCalls {
		if tc.Function.Name == FunctionName {
			return tc.Function.Arguments, nil
		}
	}
	if text := strings.TrimSpace(msg.Content); strings.HasPrefix(text, "{") && json.Valid([]byte(text)) {
		return text, nil
	}
	return "", ErrNoCall
}

// candidateSpeaker is the speaker whose segments are evidence.
const candidateSpeaker = "candidate"

// speakers maps each transcript segment id to its speaker: what a citation is checked against.
func speakers(in Input) map[string]string {
	out := make(map[string]string, len(in.Segments))
	for _, s := range in.Segments {
		out[s.ID] = s.Speaker
	}
	return out
}

// checkMarks parses report_marks arguments and keeps the marks that name a known criterion and
// level and cite at least one segment, all of them the candidate's segments of the transcript
// (known: segment id → speaker). Each other mark is rejected with its reason; a malformed
// whole is an error.
func checkMarks(args string, in Input, known map[string]string, round Round) ([]Mark, []Rejected, error) {
	var raw struct {
		Marks []Mark `json:"marks"`
	}
	if err := json.Unmarshal([]byte(args), &raw); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadArguments, err)
	}
	crit := map[string]Criterion{}
	for _, c := range in.Criteria {
		crit[c.ID] = c
	}
	var ok []Mark
	var rej []Rejected
	seen := map[string]bool{}
	for _, m := range raw.Marks {
		reject := func(r Rejection, detail string) {
			rej = append(rej, Rejected{Round: round, Criterion: m.Criterion, Level: m.Level, Reason: r, Detail: detail})
		}
		c, found := crit[m.Criterion]
		var unknown, notCandidate []string
		for _, s := range m.Segments {
			switch sp, ok := known[s]; {
			case !ok:
				unknown = append(unknown, s)
			case sp != candidateSpeaker:
				notCandidate = append(notCandidate, s)
			}
		}
		switch {
		case !found:
			reject(RejectUnknownCriterion, fmt.Sprintf("no criterion %q in the scheme", m.Criterion))
		case seen[m.Criterion]:
			reject(RejectDuplicate, "a second mark for the criterion in one reply")
		case c.levelIndex(m.Level) < 0:
			reject(RejectUnknownLevel, fmt.Sprintf("level %q is not one of %s", m.Level, strings.Join(c.Levels, ", ")))
		case len(m.Segments) == 0:
			reject(RejectUncited, "the rationale cites no transcript segment")
		case len(unknown) > 0:
			reject(RejectUnknownSegment, fmt.Sprintf("cites %s, not in the transcript", strings.Join(unknown, ", ")))
		case len(notCandidate) > 0:
			reject(RejectNotCandidate, fmt.Sprintf("cites %s, the examiner's words, not the candidate's", strings.Join(notCandidate, ", ")))
		default:
			seen[m.Criterion] = true
			ok = append(ok, m)
		}
	}
	return ok, rej, nil
}

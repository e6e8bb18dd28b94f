package panel

import "github.com/examtui/examtui/runtime/usage"

// Result is what the panel found for one session.
type Result struct {
	SessionID string            `json:"sessionId"`
	Members   []MemberResult    `json:"members"`
	Criteria  []CriterionResult `json:"criteria"`
	// Alpha is Krippendorff's α (ordinal) between the members' final levels over the criteria,
	// the figure published panels report; nil when undefined (every level the same, or fewer
	// than two members marked any criterion), with AlphaNote saying why.
	Alpha     *float64 `json:"alpha"`
	AlphaNote string   `json:"alphaNote,omitempty"`
	// Usage is the tokens every member's calls consumed, per model, added up as the examiner's are.
	Usage usage.Totals `json:"usage"`
}

// MemberResult is one member's part: its marks, what was rejected, and whether it failed.
type MemberResult struct {
	Name  string `json:"name"`
	Model string `json:"model"`
	// Endpoint is the member's server (scheme, host, path; no credentials); empty for the
	// default OpenAI server.
	Endpoint string `json:"endpoint,omitempty"`
	// Calls are the member's calls in order (the first round, then the revision): the digest of
	// the prompt sent and the reply's arguments as received.
	Calls []Call `json:"calls,omitempty"`
	// Error is why the member gave no first-round marks (a failed call, a timeout, no
	// report_marks call); the panel went on without it.
	Error string `json:"error,omitempty"`
	// RevisionError is why the revision round failed for this member: its first marks stand.
	RevisionError string     `json:"revisionError,omitempty"`
	First         []Mark     `json:"first"`
	Final         []Mark     `json:"final"`
	Rejected      []Rejected `json:"rejected,omitempty"`
}

// Failed reports a member that gave no accepted mark at all.
func (m MemberResult) Failed() bool { return len(m.Final) == 0 }

// MemberLevel is one member's final level on a criterion.
type MemberLevel struct {
	Member     string   `json:"member"`
	Level      string   `json:"level"`
	FirstLevel string   `json:"firstLevel"` // the first round's; differs when the member revised
	Rationale  string   `json:"rationale"`
	Segments   []string `json:"segments"`
}

// Revised reports a member that changed its level in the revision round.
func (l MemberLevel) Revised() bool { return l.FirstLevel != "" && l.FirstLevel != l.Level }

// CriterionResult is the panel's view of one criterion.
type CriterionResult struct {
	Criterion string        `json:"criterion"`
	Levels    []MemberLevel `json:"levels"`
	// Proposed is the members' median level (the lower of the two middle ones for an even
	// count); empty when no member marked the criterion.
	Proposed string `json:"proposed,omitempty"`
	// Agreement is the share of member pairs that gave the same final level (1: all agree);
	// nil with fewer than two levels.
	Agreement *float64 `json:"agreement"`
	// Spread is how many levels apart the highest and lowest final levels are.
	Spread int `json:"spread"`
	// Flagged sends the criterion to a human: the levels are Spread apart (at least the
	// panel's flag spread), or fewer than two members marked it.
	Flagged bool   `json:"flagged"`
	Why     string `json:"why,omitempty"`
}

// Call is one call to a member: its round, the SHA-256 of the messages sent, and the reply's
// report_marks arguments as received (empty when none came).
type Call struct {
	Round        Round  `json:"round"`
	PromptDigest string `json:"promptDigest"`
	Reply        string `json:"reply,omitempty"`
}

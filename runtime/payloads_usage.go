package runtime

import (
	"fmt"
	"strings"
)

// TurnUsage is what one examiner call consumed, as the model's server reported it in the
// response's usage (the last streamed chunk, the finish chunk, or the completion). A count the
// server did not send is nil, which readers show as unknown: some servers never report usage,
// and counting such a turn as 0 tokens would understate what the exam cost.
type TurnUsage struct {
	Model            string `json:"model"`
	PromptTokens     *int64 `json:"promptTokens,omitempty"`
	CompletionTokens *int64 `json:"completionTokens,omitempty"`
	// FailedAttempts are the requests of this call that failed before the one that answered
	// (retried errors, a refused tool_choice): servers send no usage with an error, so they are
	// counted, not priced.
	FailedAttempts int64 `json:"failedAttempts,omitempty"`
	// Invalid says why the server's counts were refused (negative, past MaxUsageTokens, not a
	// whole number): the counts are then unknown, never a negative or wrapped cost.
	Invalid string `json:"invalid,omitempty"`
}

// MaxUsageTokens bounds one call's token count: far past any model's context and output, and
// small enough that no sum of an exam's calls can wrap.
const MaxUsageTokens = 100_000_000

// validTokens reports whether a count is one a server could have meant: a whole number of
// tokens from 0 to MaxUsageTokens.
func validTokens(n *int64) bool { return n != nil && *n >= 0 && *n <= MaxUsageTokens }

// Known reports whether the server sent the turn's token counts, both valid.
func (u *TurnUsage) Known() bool {
	return u != nil && validTokens(u.PromptTokens) && validTokens(u.CompletionTokens)
}

// CheckUsage is the one rule for a call's usage as a provider reported it: counts that are
// present must be valid (validTokens); otherwise both become unknown and Invalid says why. It
// returns the checked usage (u itself when valid, a copy otherwise) and the reason ("" when
// valid). nil stays nil.
func CheckUsage(u *TurnUsage) (*TurnUsage, string) {
	if u == nil || u.Invalid != "" {
		if u == nil {
			return nil, ""
		}
		return u, u.Invalid
	}
	var bad []string
	for _, f := range []struct {
		name string
		n    *int64
	}{{"promptTokens", u.PromptTokens}, {"completionTokens", u.CompletionTokens}} {
		if f.n != nil && !validTokens(f.n) {
			bad = append(bad, fmt.Sprintf("%s %d", f.name, *f.n))
		}
	}
	if u.FailedAttempts < 0 {
		bad = append(bad, fmt.Sprintf("failedAttempts %d", u.FailedAttempts))
	}
	if len(bad) == 0 {
		return u, ""
	}
	c := *u
	c.PromptTokens, c.CompletionTokens, c.FailedAttempts = nil, nil, max(u.FailedAttempts, 0)
	c.Invalid = fmt.Sprintf("outside 0..%d: %s", MaxUsageTokens, strings.Join(bad, ", "))
	return &c, c.Invalid
}

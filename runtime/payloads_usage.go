package runtime

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
}

// Known reports whether the server sent the turn's token counts.
func (u *TurnUsage) Known() bool {
	return u != nil && u.PromptTokens != nil && u.CompletionTokens != nil
}

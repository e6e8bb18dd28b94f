package runtime

// Some fixed texts in payload fields that are otherwise free prose carry state a reader acts on
// (a resumed controller, the control room): whether a finish waits for confirmation, whether a
// pause was the candidate's. The stored JSON has no field of its own for them, and adding one
// would change every stored and golden stream, so the controller writes them from the
// constants below and readers ask the payload's methods: no prose is compared anywhere else.

// Fixed details of command_acknowledged for a finish.
const (
	// detailAwaitingConfirmation: a finish accepted under confirmFinish, waiting for "yes".
	detailAwaitingConfirmation = "awaiting confirmation"
	detailConfirmed            = "confirmed"
	detailNotConfirmed         = "not confirmed"
	detailAnsweredInstead      = "not confirmed: the candidate answered instead"
)

// candidatePauseReason is the exam_state reason of a pause the candidate asked for.
const candidatePauseReason = "candidate asked to pause"

// AwaitingConfirmation reports whether the acknowledgement is an accepted finish that waits for
// the candidate's confirmation (policies.confirmFinish).
func (p *CommandAcknowledgedPayload) AwaitingConfirmation() bool {
	return Command(p.Command) == CmdFinish && p.Accepted && p.Detail == detailAwaitingConfirmation
}

// PausedByCandidate reports whether the exam_state is a pause the candidate asked for (a
// command), as opposed to one by the examiner or the exam itself.
func (p *ExamStatePayload) PausedByCandidate() bool {
	return p.State == StatePaused && p.Reason == candidatePauseReason
}

package runtime

import "strings"

// ErrorCode names the failure a system_error reports.
type ErrorCode string

// Error codes.
const (
	CodeUnknown ErrorCode = ""
	// The controller.
	CodeObservationInvalid ErrorCode = "observation_invalid" // the examiner's report was malformed
	CodeExaminerFailed     ErrorCode = "examiner_failed"     // no usable reply (error, timeout, no call)
	CodeAdminFailed        ErrorCode = "admin_failed"        // an immediate admin instruction could not run
	// The process running the exam.
	CodeWorkerJobFailed ErrorCode = "worker_job_failed" // a worker's job failed the exam (resumable)
	// The LiveKit bot.
	CodeCandidateInputFailed  ErrorCode = "candidate_input_failed"
	CodeExaminerCommandFailed ErrorCode = "examiner_command_failed"
	CodeAudioPipelineFailed   ErrorCode = "audio_pipeline_failed"
	CodeSpeechFailed          ErrorCode = "speech_failed"
	CodeUnauthorizedMessage   ErrorCode = "livekit_unauthorized_message"
	CodeInvalidMessage        ErrorCode = "livekit_invalid_message"
	CodeUntrustedParticipant  ErrorCode = "security_untrusted_participant"
	CodeForgedEvent           ErrorCode = "security_forged_event"
	CodeEventGap              ErrorCode = "security_event_gap"

	// CodeSummaryFailed: the model's summary of older turns failed; the extractive one stands.
	CodeSummaryFailed ErrorCode = "summary_failed"

	// A Pipecat bot (contrib/pipecat) whose call to `examtui controller` failed: it said the
	// fallback line and reports the failure with its next call that gets through.
	CodeControllerUnreachable ErrorCode = "controller_unreachable"
	CodeControllerError       ErrorCode = "controller_error"

	// CodeUsageInvalid: a provider's token counts were refused (runtime.CheckUsage); the call's
	// usage is recorded as unknown.
	CodeUsageInvalid ErrorCode = "usage_invalid"
)

// ErrorCodes lists every error code.
var ErrorCodes = []ErrorCode{CodeObservationInvalid, CodeExaminerFailed, CodeAdminFailed, CodeWorkerJobFailed,
	CodeCandidateInputFailed, CodeExaminerCommandFailed, CodeAudioPipelineFailed, CodeSpeechFailed,
	CodeUnauthorizedMessage, CodeInvalidMessage, CodeUntrustedParticipant, CodeForgedEvent, CodeEventGap,
	CodeSummaryFailed, CodeControllerUnreachable, CodeControllerError, CodeUsageInvalid}

func (c ErrorCode) String() string { return string(c) }

// Valid reports whether c is a known error code.
func (c ErrorCode) Valid() bool { return isKnown(c, ErrorCodes) }

// ParseErrorCode parses a system_error code.
func ParseErrorCode(s string) (ErrorCode, error) { return parseEnum("error code", s, ErrorCodes) }

// Examiner reports whether the code is the examiner failing (observation_invalid,
// examiner_failed, or a provider's llm* code).
func (c ErrorCode) Examiner() bool {
	return c == CodeObservationInvalid || c == CodeExaminerFailed || strings.HasPrefix(string(c), "llm")
}

package runtime

import "encoding/json"

// EventSpecReload records an edit of the exam spec while the exam runs (`examtui run --watch`).
const EventSpecReload EventType = "spec_reload"

// SpecReloadStatus is what became of an edited spec.
type SpecReloadStatus string

// Reload statuses.
const (
	// ReloadRejected: the edit does not compile; the exam keeps the version it runs.
	ReloadRejected SpecReloadStatus = "rejected"
	// ReloadStaged: the edit compiled and applies from the next node entry.
	ReloadStaged SpecReloadStatus = "staged"
	// ReloadApplied: the next node was entered with the new version (Exam holds it).
	ReloadApplied SpecReloadStatus = "applied"
	// ReloadDropped: a staged version could not apply (it lacks the node the exam moved to,
	// or the exam ended first); the exam keeps the version it runs.
	ReloadDropped SpecReloadStatus = "dropped"
)

func (s SpecReloadStatus) String() string { return string(s) }

// SpecReloadPayload reports an edited spec. An applied reload carries the compiled exam now
// running, so a session (its replay, its resume) stays explainable from its events alone.
type SpecReloadPayload struct {
	Status       SpecReloadStatus `json:"status"`
	Spec         string           `json:"spec"`
	SourceSHA256 string           `json:"sourceSha256,omitempty"`
	// Errors are the positioned diagnostics (file:line:col: message) of a rejected edit.
	Errors []string `json:"errors,omitempty"`
	// NodeID is the node entered with the new version (applied), or the current node.
	NodeID string `json:"nodeId,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Exam is the compiled exam (spec.Exam JSON) an applied reload switched to.
	Exam json.RawMessage `json:"exam,omitempty"`
}

// EventType implements Payload.
func (*SpecReloadPayload) EventType() EventType { return EventSpecReload }

package sessions

import "errors"

// Named errors.
var (
	ErrNotFound        = errors.New("session not found")
	ErrAmbiguousID     = errors.New("session id prefix is ambiguous")
	ErrStoreTooNew     = errors.New("store was written by a newer examtui")
	ErrStoreClosed     = errors.New("store is closed")
	ErrSessionBusy     = errors.New("session is owned by a running process")
	ErrSessionEnded    = errors.New("session has ended")
	ErrJournalClosed   = errors.New("journal is closed")
	ErrSeqOutOfOrder   = errors.New("event seq out of order")
	ErrWrongSession    = errors.New("event belongs to another session")
	ErrSecretInPayload = errors.New("payload contains a value that looks like a secret")
	ErrInvalidMeta     = errors.New("invalid session metadata")
	ErrInvalidOption   = errors.New("invalid option")
	ErrInvalidArtifact = errors.New("invalid runresult artifact")
	ErrUnknownFormat   = errors.New("unknown export format")
	ErrNothingToExport = errors.New("session has no turns to export as a runresult")
)

// ErrInvalidEvent reports an event the journal cannot store as given.
var ErrInvalidEvent = errors.New("invalid event")

// ErrStoreUnreachable reports a store that cannot be reached (PostgreSQL down, wrong address,
// refused credentials); the message names the store with its password masked.
var ErrStoreUnreachable = errors.New("session store unreachable")

// ErrInvalidDraw is returned for a balanced variant draw with nothing to draw from.
var ErrInvalidDraw = errors.New("invalid variant draw")

// Join code errors (RedeemJoinCode, CreateJoinCode): the candidate server answers each with its
// own status.
var (
	ErrJoinCodeNotFound = errors.New("join code not found")
	ErrJoinCodeExpired  = errors.New("join code expired")
	ErrJoinCodeUsed     = errors.New("join code already used on another device")
	ErrJoinCodeRevoked  = errors.New("join code revoked")
	ErrInvalidJoinCode  = errors.New("invalid join code")
)

// Marking errors (marks.go).
var (
	ErrInvalidMark = errors.New("invalid mark")
	ErrMarksLocked = errors.New("marking is locked")
)

// Marking roster and identity errors.
var (
	ErrUnknownRole = errors.New("unknown marking role")
	ErrNotOnRoster = errors.New("not on the exam's marking roster")
	ErrOwnerOnly   = errors.New("only the store's owner manages the marking roster")
	ErrNeedsOwner  = errors.New("the store needs its owner to migrate it first")
	ErrNoAccess    = errors.New("no access to the store: its owner adds you to an exam's roster (examtui marks roster add)")
	ErrNoCandidate = errors.New("candidate not in the roster")
)

// Records errors (accesslog.go, delete.go, retention.go).
var (
	ErrAccessLogBroken = errors.New("access log chain broken")
	// ErrLockedMarks refuses deleting a session whose marks are locked unless forced.
	ErrLockedMarks = errors.New("session has locked marks")
	// ErrEncrypted refuses reading a file encrypted at rest without an identity to decrypt it.
	ErrEncrypted = errors.New("encrypted at rest: give the age identity file (--identity) to read it")
)

// LMS link errors (TieLTILink, LTILinkExam).
var (
	// ErrLinkTied is a tie asked for a link already tied to another exam.
	ErrLinkTied = errors.New("the link already runs another exam")
	// ErrNoLTILink is a link no instructor has tied to an exam.
	ErrNoLTILink = errors.New("the link is tied to no exam")
)

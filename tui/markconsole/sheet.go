package markconsole

import (
	"context"
	"time"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/spec"
)

// Sheet is everything the console shows for one session. The Backend builds it; the console
// only reads it and the marker's own entries.
type Sheet struct {
	SessionID string
	ExamID    string
	Candidate string
	StartedAt time.Time
	Marking   *spec.CompiledMarking
	Evidence  []spec.EvidenceDef // the exam's signals, whose descriptions the panel's prompt carries
	Proposal  *marking.Proposal  // the rule's proposal
	Panel     *panel.Result      // the model panel's, when one ran; nil otherwise
	Lines     []Line             // the final transcript segments, in order
	// Recording is the candidate's track (candidate.wav), "" when the session has none;
	// RecordingStart is the instant its first sample was taken.
	Recording      string
	RecordingStart time.Time
	// Marks are this marker's marks so far, by criterion. Never another marker's: marking is
	// blind.
	Marks map[string]Entry
	// Outcomes say, per criterion this marker has marked, where it went (agreed, settled
	// within tolerance, to the moderator, awaiting the other marker); never another's level.
	Outcomes map[string]string
	Marker   string
	Locked   bool // the session's marks are locked: the console shows them and changes nothing
	// Queue says where this session is in the marker's queue (Position of Total); zero Total
	// when one session was asked for.
	Position, Total int
}

// Line is one final transcript segment.
type Line struct {
	SegmentID string
	Seq       int64
	NodeID    string
	Speaker   string // candidate | examiner
	Text      string
	At        time.Time // when it was said
}

// Entry is one of the marker's marks.
type Entry struct {
	Level         string
	Justification string
}

// Backend is the console's way to the store and the outside world. Each call runs in a tea.Cmd.
type Backend interface {
	// Load builds the sheet of one session for this marker.
	Load(ctx context.Context, sessionID string) (*Sheet, error)
	// Save records the marker's mark on one criterion and returns the criterion's outcome
	// (Sheet.Outcomes) after it.
	Save(ctx context.Context, sessionID, criterion string, e Entry) (string, error)
	// Next is the next session in the marker's queue after the given one ("" for the first),
	// or "" when the queue is done.
	Next(ctx context.Context, after string) (string, error)
	// Panel runs the model panel on the session; an error when none is configured.
	Panel(ctx context.Context, s *Sheet) (*panel.Result, error)
	// Play plays the recording from offset for at most length; it returns when playback ends.
	Play(ctx context.Context, path string, offset, length time.Duration) error
}

package panel

import (
	"fmt"
	"slices"
)

// Criterion is what the members mark: an id, what it assesses, and its levels from lowest to
// highest (the scheme's order; agreement figures count levels apart in this order).
type Criterion struct {
	ID          string
	Name        string
	Description string
	Levels      []string
}

// Segment is one transcript segment the members may cite, by its id (the transcript_segment
// event's segmentId).
type Segment struct {
	ID      string
	NodeID  string
	Speaker string // candidate | examiner
	Text    string
}

// Input is what every member is given: the criteria and the whole transcript.
type Input struct {
	SessionID string
	Criteria  []Criterion
	Segments  []Segment
}

// Validate reports an input the panel cannot mark.
func (in Input) Validate() error {
	if len(in.Criteria) == 0 {
		return fmt.Errorf("%w: no criteria", ErrInvalid)
	}
	if len(in.Segments) == 0 {
		return fmt.Errorf("%w: session %s has no transcript segments to cite", ErrInvalid, in.SessionID)
	}
	seen := map[string]bool{}
	for _, c := range in.Criteria {
		if c.ID == "" || len(c.Levels) == 0 {
			return fmt.Errorf("%w: criterion %q needs an id and levels", ErrInvalid, c.ID)
		}
		if seen[c.ID] {
			return fmt.Errorf("%w: criterion %q twice", ErrInvalid, c.ID)
		}
		seen[c.ID] = true
	}
	return nil
}

// levelIndex is the level's rank in the criterion (0 lowest), or -1.
func (c Criterion) levelIndex(level string) int { return slices.Index(c.Levels, level) }

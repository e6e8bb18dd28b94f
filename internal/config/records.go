package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Records governs exam records (records:, docs/records.md): how long each kind of data is
// kept, the recording notice the candidate sees, and encryption at rest.
type Records struct {
	Retention Retention `yaml:"retention"`
	// Notice is the recording notice shown to the candidate before the microphone opens and
	// said in the console by run --mic, when the exam file gives none.
	Notice string `yaml:"notice"`
	// Recipients are age public keys ("age1..."): recordings and exported archives are
	// encrypted to them. Empty: stored as they are. The identity (private key) is never in the
	// config file: commands that read encrypted files take --identity FILE.
	Recipients []string `yaml:"recipients"`
}

// Retention is how long each kind of data is kept after its session ended, as an Age
// ("30d", "52w", "6y", or a Go duration "720h"); empty: kept until deleted.
type Retention struct {
	Recordings string `yaml:"recordings"` // the audio files
	Events     string `yaml:"events"`     // transcripts and events, and the control room's commands
	Marks      string `yaml:"marks"`      // marks, final marks and locks: the session goes whole
	JoinCodes  string `yaml:"joinCodes"`  // join codes, counted from their expiry
	Logs       string `yaml:"logs"`       // lines of the log files in the data directory
}

// RetentionAges is Retention parsed: zero for a kind kept until deleted.
type RetentionAges struct {
	Recordings, Events, Marks, JoinCodes, Logs time.Duration
}

// Ages parses every field, naming the one that is wrong.
func (r Retention) Ages() (RetentionAges, error) {
	var out RetentionAges
	for _, f := range []struct {
		name string
		text string
		dst  *time.Duration
	}{
		{"recordings", r.Recordings, &out.Recordings}, {"events", r.Events, &out.Events}, {"marks", r.Marks, &out.Marks},
		{"joinCodes", r.JoinCodes, &out.JoinCodes}, {"logs", r.Logs, &out.Logs},
	} {
		d, err := ParseAge(f.text)
		if err != nil {
			return RetentionAges{}, fmt.Errorf("records.retention.%s: %w", f.name, err)
		}
		*f.dst = d
	}
	return out, nil
}

// ParseAge reads an age: a whole number of days ("30d"), weeks ("52w") or years ("6y", 365
// days each), or a Go duration ("720h"); "" is zero (no limit). Negative and zero ages are
// refused: a zero retention would delete everything at once.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	day := 24 * time.Hour
	units := map[byte]time.Duration{'d': day, 'w': 7 * day, 'y': 365 * day}
	var d time.Duration
	if u, ok := units[s[len(s)-1]]; ok {
		n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("age %q: want a whole number before %q", s, s[len(s)-1:])
		}
		if n > math.MaxInt64/int64(u) {
			return 0, fmt.Errorf("age %q: too long (at most %d years)", s, math.MaxInt64/int64(365*day))
		}
		d = time.Duration(n) * u
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("age %q: want 30d, 52w, 6y or a Go duration", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("age %q: want more than zero (leave it out to keep the data)", s)
	}
	return d, nil
}

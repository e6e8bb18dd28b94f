package headless

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SayPart is one spoken stretch of a say line and the pause that follows it.
type SayPart struct {
	Text  string
	Pause time.Duration // silence after Text (zero for the last part)
}

// pauseMarker is "[pause 2s]", "[pause 1.5s]" or "[pause 800ms]" inside a say line.
var pauseMarker = regexp.MustCompile(`\[\s*pause\b([^\]]*)\]`)

var pauseValue = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\s*$`)

// maxPause bounds one pause inside a say line; longer silences are silence steps.
const maxPause = 60 * time.Second

// SplitPauses splits a say line at its pause markers: `Because [pause 2s] most guests…` is
// spoken as "Because", two seconds of silence, then "most guests…". A line without markers is
// one part. Text outside markers containing "[" or "]" is left as it is.
func SplitPauses(line string) ([]SayPart, error) {
	var parts []SayPart
	rest := line
	for {
		loc := pauseMarker.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		m := pauseValue.FindStringSubmatch(rest[loc[2]:loc[3]])
		if m == nil {
			return nil, fmt.Errorf("%w: %q: want a duration such as [pause 2s] or [pause 800ms]", ErrPauseMarker, rest[loc[0]:loc[1]])
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %w", ErrPauseMarker, rest[loc[0]:loc[1]], err)
		}
		unit := time.Second
		if m[2] == "ms" {
			unit = time.Millisecond
		}
		d := time.Duration(v * float64(unit))
		if d <= 0 || d > maxPause {
			return nil, fmt.Errorf("%w: %q: a pause is more than 0 and at most %s", ErrPauseMarker, rest[loc[0]:loc[1]], maxPause)
		}
		text := strings.TrimSpace(rest[:loc[0]])
		switch {
		case text != "":
			parts = append(parts, SayPart{Text: text, Pause: d})
		case len(parts) > 0:
			parts[len(parts)-1].Pause += d
		default:
			return nil, fmt.Errorf("%w: a say line cannot begin with a pause (use a silence or wait step)", ErrPauseMarker)
		}
		rest = rest[loc[1]:]
	}
	if text := strings.TrimSpace(rest); text != "" {
		parts = append(parts, SayPart{Text: text})
	} else if len(parts) > 0 {
		return nil, fmt.Errorf("%w: a say line cannot end with a pause (the turn would end in it)", ErrPauseMarker)
	}
	return parts, nil
}

// SpokenText is a say line's words without its pause markers (what a recogniser should hear).
// A line with a malformed marker is returned as it is (validation reports it).
func SpokenText(line string) string {
	parts, err := SplitPauses(line)
	if err != nil {
		return line
	}
	words := make([]string, len(parts))
	for i, p := range parts {
		words[i] = p.Text
	}
	return strings.Join(words, " ")
}

// Pauses is the total silence inside a say line.
func Pauses(line string) time.Duration {
	parts, _ := SplitPauses(line)
	var d time.Duration
	for _, p := range parts {
		d += p.Pause
	}
	return d
}

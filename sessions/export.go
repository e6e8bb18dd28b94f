package sessions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
)

// Format is an export format.
type Format string

// Export formats.
const (
	FormatRunResult Format = "runresult"
	FormatJSONL     Format = "jsonl"
	FormatMarkdown  Format = "markdown"
)

// Formats lists the export formats.
var Formats = []Format{FormatRunResult, FormatJSONL, FormatMarkdown}

func (f Format) String() string { return string(f) }

// ParseFormat reads a format name ("md" is accepted for markdown).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "runresult":
		return FormatRunResult, nil
	case "jsonl", "ndjson":
		return FormatJSONL, nil
	case "markdown", "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("%w: %q (want runresult, jsonl or markdown)", ErrUnknownFormat, s)
}

// ExportOptions tune exports.
type ExportOptions struct {
	Version string // examtui version, recorded in the runresult artifact
	// Prices is the config file's price table, for the cost in the Markdown export.
	Prices usage.Prices
}

// Export writes session id in format f to w. jsonl streams; the others read the whole session.
func (s *Store) Export(ctx context.Context, w io.Writer, id string, f Format, opts ExportOptions) error {
	switch f {
	case FormatJSONL:
		if _, err := s.Get(ctx, id); err != nil {
			return err
		}
		return WriteJSONL(w, s.Events(ctx, id, 1))
	case FormatRunResult, FormatMarkdown:
	default:
		return fmt.Errorf("%w: %q", ErrUnknownFormat, f)
	}
	sess, events, err := s.Load(ctx, id)
	if err != nil {
		return err
	}
	if f == FormatRunResult {
		rr, err := BuildRunResult(sess, events, WithSDKVersion(opts.Version))
		if err != nil {
			return err
		}
		return WriteRunResult(w, rr)
	}
	sum, err := Summarize(sess, events)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, RenderMarkdown(sum, MarkdownOptions{Transcript: true, Prices: opts.Prices}))
	return err
}

// WriteRunResult writes the artifact as indented JSON, after checking it with
// ValidateArtifact: an artifact its own validator would reject is not written at all
// (ErrInvalidArtifact, listing the problems).
func WriteRunResult(w io.Writer, rr *RunResult) error {
	b, err := json.MarshalIndent(rr, "", "  ")
	if err != nil {
		return fmt.Errorf("encode runresult: %w", err)
	}
	if problems := ValidateArtifact(b); len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.String()
		}
		return fmt.Errorf("%w: %s", ErrInvalidArtifact, strings.Join(msgs, "; "))
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteJSONL writes one event envelope per line, its text exact and every control and
// bidirectional character written as an escape (textsafe.EscapeJSON), so `cat` or `less` of
// an export shows nothing a terminal would obey or reorder.
func WriteJSONL(w io.Writer, events func(yield func(runtime.Event, error) bool)) error {
	bw := bufio.NewWriter(w)
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	for ev, err := range events {
		if err != nil {
			return err
		}
		line.Reset()
		if err := enc.Encode(ev); err != nil {
			return fmt.Errorf("encode seq %d: %w", ev.Seq, err)
		}
		if _, err := bw.Write(textsafe.EscapeJSON(line.Bytes())); err != nil {
			return err
		}
	}
	return bw.Flush()
}

package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
)

// maxMetadata bounds a dispatch's metadata (the server allows more; an exam needs little).
const maxMetadata = 4096

// maxCandidate bounds the candidate's name.
const maxCandidate = 120

// Metadata is what a dispatch says about its exam (JSON in the dispatch's metadata). The
// spec is a name in the worker's spec directory, never a path.
type Metadata struct {
	Spec      string `json:"spec"`
	Candidate string `json:"candidate,omitempty"`
	// CandidateID is the candidate's id in the institution's roster or LMS, kept with the
	// session so marks and exports find the person.
	CandidateID string          `json:"candidateId,omitempty"`
	Options     MetadataOptions `json:"options,omitempty"`
}

// MetadataOptions are the per-exam choices a dispatcher may make.
type MetadataOptions struct {
	// Examiner overrides the worker's examiner kind: auto, offline or llm.
	Examiner string `json:"examiner,omitempty"`
}

// specName is what a spec reference may look like: a file name without directories.
var specName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ParseMetadata decodes and checks a dispatch's metadata. Unknown fields are refused, so a
// typo does not silently run the wrong exam.
func ParseMetadata(raw string) (Metadata, error) {
	var m Metadata
	if len(raw) > maxMetadata {
		return m, fmt.Errorf("%w: %d bytes (at most %d)", ErrBadMetadata, len(raw), maxMetadata)
	}
	if strings.TrimSpace(raw) == "" {
		return m, fmt.Errorf("%w: empty; want JSON like {\"spec\": \"NAME\", \"candidate\": \"...\"}", ErrBadMetadata)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Metadata{}, fmt.Errorf("%w: %v", ErrBadMetadata, err)
	}
	if dec.More() {
		return Metadata{}, fmt.Errorf("%w: trailing data after the JSON object", ErrBadMetadata)
	}
	if err := m.validate(); err != nil {
		return Metadata{}, err
	}
	return m, nil
}

func (m Metadata) validate() error {
	switch {
	case m.Spec == "":
		return fmt.Errorf("%w: no spec named", ErrBadMetadata)
	case !specName.MatchString(m.Spec) || strings.Contains(m.Spec, ".."):
		return fmt.Errorf("%w: spec %q is not a plain name (letters, digits, '.', '_', '-'; no directories)", ErrBadMetadata, m.Spec)
	case !utf8.ValidString(m.Candidate) || utf8.RuneCountInString(m.Candidate) > maxCandidate:
		return fmt.Errorf("%w: candidate name is not valid UTF-8 of at most %d characters", ErrBadMetadata, maxCandidate)
	case !utf8.ValidString(m.CandidateID) || utf8.RuneCountInString(m.CandidateID) > maxCandidate || strings.ContainsFunc(m.CandidateID, unicode.IsControl):
		return fmt.Errorf("%w: candidate id is not printable UTF-8 of at most %d characters", ErrBadMetadata, maxCandidate)
	}
	switch m.Options.Examiner {
	case "", app.ExaminerAuto, app.ExaminerOffline, app.ExaminerLLM:
	default:
		return fmt.Errorf("%w: examiner %q (want auto, offline or llm)", ErrBadMetadata, m.Options.Examiner)
	}
	return nil
}

// Encode is the metadata as a dispatch carries it.
func (m Metadata) Encode() (string, error) {
	if err := m.validate(); err != nil {
		return "", err
	}
	b, err := json.Marshal(m)
	return string(b), err
}

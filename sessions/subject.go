package sessions

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// Subject access (docs/records.md): everything held about one candidate in one zip archive,
// in documented formats:
//
//	README.txt                       what the archive holds and how to read it
//	manifest.json                    SubjectManifest: who, when, which sessions and files
//	sessions/<id>/session.json       the session's metadata (exam, times, state)
//	sessions/<id>/transcript.txt     the transcript as text: [mm:ss] speaker: words
//	sessions/<id>/transcript.json    the same as JSON: SubjectLine objects
//	sessions/<id>/events.jsonl       the whole event stream, one envelope per line
//	sessions/<id>/record.md          the examiner's record of the exam (sessions export --format markdown)
//	sessions/<id>/marks.json         SubjectMarks: markers' marks and final marks with justifications, the lock
//	sessions/<id>/recordings/<name>  the audio recordings (WAV), decrypted when an opener is given
//	access-log.json                  the access log's entries for these sessions

// SubjectOptions configure WriteSubjectArchive.
type SubjectOptions struct {
	// Open reads a recording (it may decrypt one); nil: os.Open, and encrypted recordings are
	// refused.
	Open func(path string) (io.ReadCloser, error)
	// ExportOptions are the markdown record's options.
	ExportOptions ExportOptions
	// Now is the export's time (zero: the store's clock); By who exported (zero: Identity).
	Now time.Time
	By  string
}

// SubjectManifest is manifest.json.
type SubjectManifest struct {
	Candidate  string           `json:"candidate"`
	ExportedAt time.Time        `json:"exportedAt"`
	ExportedBy string           `json:"exportedBy"`
	Sessions   []SubjectSession `json:"sessions"`
	Formats    string           `json:"formats"`
}

// SubjectSession is one session in the manifest.
type SubjectSession struct {
	ID        string    `json:"id"`
	ExamID    string    `json:"examId"`
	Title     string    `json:"title"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
	State     string    `json:"state"`
	Files     []string  `json:"files"`
}

// SubjectLine is one transcript line of transcript.json.
type SubjectLine struct {
	AtMs    int64  `json:"atMs"`
	NodeID  string `json:"nodeId"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// SubjectMarks is marks.json.
type SubjectMarks struct {
	Marks      []Mark    `json:"marks"`
	FinalMarks []Mark    `json:"finalMarks"`
	Lock       *MarkLock `json:"lock,omitempty"`
}

// CandidateSessions lists the ids of a candidate's sessions, oldest first. candidate is a
// roster id or a name: the sessions attached to that id (candidate_id) are theirs whatever
// name they carry, and of the sessions attached to no one, those named as the candidate (the
// roster entry's name for a roster id, else candidate exactly as sessions list shows it). A
// session attached to another candidate is never theirs, even under the same name.
func (s *Store) CandidateSessions(ctx context.Context, candidate string) ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	name := candidate
	c, ok, err := s.LookupCandidate(ctx, candidate)
	if err != nil {
		return nil, err
	}
	if ok && c.Name != "" {
		name = c.Name
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE candidate_id = ? OR (candidate_id = '' AND candidate = ?)
		ORDER BY started_ns, id`, candidate, name)
	if err != nil {
		return nil, fmt.Errorf("sessions of a candidate: %w", err)
	}
	defer rows.Close()
	return scanIDs(rows)
}

// WriteSubjectArchive writes the zip archive of everything held about candidate (a roster id
// or a name: CandidateSessions) to w and appends the export to the access log of each session. A
// candidate with no session is ErrNotFound.
func (s *Store) WriteSubjectArchive(ctx context.Context, w io.Writer, candidate string, opts SubjectOptions) (SubjectManifest, error) {
	ids, err := s.CandidateSessions(ctx, candidate)
	if err != nil {
		return SubjectManifest{}, err
	}
	if len(ids) == 0 {
		return SubjectManifest{}, fmt.Errorf("%w: no session of candidate %q", ErrNotFound, candidate)
	}
	if opts.Now.IsZero() {
		opts.Now = s.cfg.now()
	}
	if opts.By == "" {
		if opts.By, err = s.Identity(ctx); err != nil {
			return SubjectManifest{}, err
		}
	}
	if opts.Open == nil {
		opts.Open = openPlain
	}
	man := SubjectManifest{Candidate: candidate, ExportedAt: opts.Now.UTC(), ExportedBy: opts.By,
		Formats: "README.txt in this archive says what each file holds"}
	for _, id := range ids {
		// Recorded before the read, as every access is.
		if err := s.RecordAccess(ctx, AccessEntry{Action: AccessCandidateExport, SessionID: id, Who: opts.By, Detail: "subject access archive"}); err != nil {
			return man, err
		}
	}
	z := zip.NewWriter(w)
	for _, id := range ids {
		ss, err := s.subjectSession(ctx, z, id, opts)
		if err != nil {
			return man, fmt.Errorf("session %s: %w", id, err)
		}
		man.Sessions = append(man.Sessions, ss)
	}
	var log []AccessEntry
	for _, id := range ids {
		entries, err := s.AccessLog(ctx, AccessFilter{SessionID: id})
		if err != nil {
			return man, err
		}
		log = append(log, entries...)
	}
	if log == nil {
		log = []AccessEntry{}
	}
	if err := zipJSON(z, "access-log.json", log); err != nil {
		return man, err
	}
	if err := zipJSON(z, "manifest.json", man); err != nil {
		return man, err
	}
	if err := zipBytes(z, "README.txt", []byte(subjectReadme)); err != nil {
		return man, err
	}
	return man, z.Close()
}

func (s *Store) subjectSession(ctx context.Context, z *zip.Writer, id string, opts SubjectOptions) (SubjectSession, error) {
	sess, events, err := s.Load(ctx, id)
	if err != nil {
		return SubjectSession{}, err
	}
	dir := "sessions/" + id + "/"
	ss := SubjectSession{ID: id, ExamID: sess.ExamID, Title: sess.Title, StartedAt: sess.StartedAt, EndedAt: sess.EndedAt, State: sess.Status().String()}
	add := func(name string, write func(io.Writer) error) error {
		f, err := z.Create(dir + name)
		if err != nil {
			return err
		}
		ss.Files = append(ss.Files, dir+name)
		return write(f)
	}
	meta := struct {
		ID, ExamID, Title, Candidate, Examiner, Input, State string
		StartedAt, EndedAt                                   time.Time
		Events                                               int
	}{sess.ID, sess.ExamID, sess.Title, sess.Candidate, sess.Examiner, sess.Input.String(), sess.Status().String(), sess.StartedAt, sess.EndedAt, len(events)}
	lines := transcriptLines(events)
	marks, finals, lock, err := s.sessionMarks(ctx, id)
	if err != nil {
		return ss, err
	}
	steps := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"session.json", func(w io.Writer) error { return writeIndented(w, meta) }},
		{"transcript.txt", func(w io.Writer) error { return writeTranscriptText(w, lines) }},
		{"transcript.json", func(w io.Writer) error { return writeIndented(w, lines) }},
		{"events.jsonl", func(w io.Writer) error { return WriteJSONL(w, s.Events(ctx, id, 1)) }},
		{"record.md", func(w io.Writer) error { return s.Export(ctx, w, id, FormatMarkdown, opts.ExportOptions) }},
		{"marks.json", func(w io.Writer) error {
			return writeIndented(w, SubjectMarks{Marks: marks, FinalMarks: finals, Lock: lock})
		}},
	}
	for _, st := range steps {
		if err := add(st.name, st.write); err != nil {
			return ss, fmt.Errorf("%s: %w", st.name, err)
		}
	}
	for _, r := range sess.Recordings {
		name := strings.TrimSuffix(filepath.Base(r), EncryptedSuffix)
		if take := filepath.Base(filepath.Dir(r)); strings.HasPrefix(take, "take-") {
			name = take + "-" + name
		}
		err := add("recordings/"+name, func(w io.Writer) error {
			f, err := opts.Open(r)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
		if err != nil {
			return ss, fmt.Errorf("recording %s: %w", filepath.Base(r), err)
		}
	}
	return ss, nil
}

// sessionMarks reads a session's marks, final marks and lock (nil when unlocked).
func (s *Store) sessionMarks(ctx context.Context, id string) (marks, finals []Mark, lock *MarkLock, err error) {
	if marks, err = s.Marks(ctx, id); err != nil {
		return
	}
	if finals, err = s.FinalMarks(ctx, id); err != nil {
		return
	}
	l, ok, err := s.MarkLock(ctx, id)
	if ok {
		lock = &l
	}
	if marks == nil {
		marks = []Mark{}
	}
	if finals == nil {
		finals = []Mark{}
	}
	return marks, finals, lock, err
}

// transcriptLines are the final transcript segments, in order.
func transcriptLines(events []runtime.Event) []SubjectLine {
	lines := []SubjectLine{}
	for _, ts := range runtime.FinalSegments(events) {
		lines = append(lines, SubjectLine{AtMs: ts.TimestampMs, NodeID: ts.NodeID, Speaker: ts.Speaker.String(), Text: ts.Text})
	}
	return lines
}

func writeTranscriptText(w io.Writer, lines []SubjectLine) error {
	for _, l := range lines {
		sec := l.AtMs / 1000
		if _, err := fmt.Fprintf(w, "[%02d:%02d] %s: %s\n", sec/60, sec%60, l.Speaker, OneLine(l.Text)); err != nil {
			return err
		}
	}
	return nil
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func zipJSON(z *zip.Writer, name string, v any) error {
	f, err := z.Create(name)
	if err != nil {
		return err
	}
	return writeIndented(f, v)
}

func zipBytes(z *zip.Writer, name string, b []byte) error {
	f, err := z.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return err
}

// openPlain opens a recording as it is; an encrypted one needs an identity.
func openPlain(path string) (io.ReadCloser, error) {
	if strings.HasSuffix(path, EncryptedSuffix) {
		return nil, fmt.Errorf("%w: %s", ErrEncrypted, filepath.Base(path))
	}
	return os.Open(path)
}

const subjectReadme = `Everything this examination system holds about you
===================================================

manifest.json                     who this archive is for, when and by whom it was made, the
                                  sessions and the files of each
sessions/<id>/session.json        the session: exam, title, when it started and ended, state
sessions/<id>/transcript.txt      what was said, one line each: [minutes:seconds] speaker: words
sessions/<id>/transcript.json     the same as JSON: atMs, nodeId, speaker, text
sessions/<id>/events.jsonl        every event of the exam as recorded, one JSON object a line
                                  ({event, sessionId, seq, timestamp, payload})
sessions/<id>/record.md           the examiner's record of the exam (Markdown)
sessions/<id>/marks.json          each marker's marks and the final marks, with their
                                  justifications, and the lock that finalised them
sessions/<id>/recordings/*.wav    the audio recordings of the exam (candidate and examiner)
access-log.json                   everyone who looked at, exported, marked or changed these
                                  sessions: who, what, when, from where
`

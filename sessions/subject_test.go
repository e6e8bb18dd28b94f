package sessions

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestSubjectArchive opens a candidate's archive as a script would: it holds their transcript
// (text and JSON), events, recordings, marks with justifications and the access log of their
// sessions, and nothing of another candidate.
func TestSubjectArchive(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st, dataDir := eng.openRecords(t)
		me := seedPerson(t, st, dataDir, "subj-mia-01", "Mia Okonkwo", fixtureStart)
		other := seedPerson(t, st, dataDir, "subj-tom-02", "Tom Other", fixtureStart.Add(time.Hour))
		if err := st.RecordAccess(ctx, AccessEntry{Action: AccessShow, SessionID: other.id}); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		man, err := st.WriteSubjectArchive(ctx, &buf, me.name, SubjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(man.Sessions) != 1 || man.Sessions[0].ID != me.id {
			t.Fatalf("manifest sessions = %+v", man.Sessions)
		}
		z, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range z.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name] = string(b)
			for _, w := range []string{other.id, other.name, other.phrase} {
				if strings.Contains(string(b), w) {
					t.Errorf("%s holds %q, another candidate's", f.Name, w)
				}
			}
		}
		dir := "sessions/" + me.id + "/"
		for name, want := range map[string]string{
			dir + "transcript.txt":           me.phrase,
			dir + "transcript.json":          me.phrase,
			dir + "events.jsonl":             me.phrase,
			dir + "record.md":                me.phrase,
			dir + "marks.json":               me.name + " weighed two options",
			dir + "recordings/candidate.wav": "RIFF audio of " + me.name,
			dir + "recordings/examiner.wav":  "RIFF audio of " + me.name,
			dir + "session.json":             me.name,
			"manifest.json":                  me.id,
			"access-log.json":                "candidates.export",
			"README.txt":                     "transcript.txt",
		} {
			if got, ok := files[name]; !ok || !strings.Contains(got, want) {
				t.Errorf("%s: present %v, want it to hold %q:\n%s", name, ok, want, got)
			}
		}
		var marks SubjectMarks
		if err := json.Unmarshal([]byte(files[dir+"marks.json"]), &marks); err != nil || len(marks.Marks) != 1 || len(marks.FinalMarks) != 1 || marks.Lock == nil {
			t.Errorf("marks.json = %+v, %v", marks, err)
		}
		var log []AccessEntry
		if err := json.Unmarshal([]byte(files["access-log.json"]), &log); err != nil || len(log) != 1 || log[0].SessionID != me.id {
			t.Errorf("access-log.json = %+v, %v, want this candidate's sessions' entries only", log, err)
		}
		if _, err := st.WriteSubjectArchive(ctx, io.Discard, "Nobody Here", SubjectOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("archive of an unknown candidate: %v", err)
		}
	})
}

// TestCandidateSessionsByRosterID: a roster id finds the sessions attached to it whatever name
// they carry, and of the unattached sessions those under the roster entry's name; a namesake's
// attached session is never included. A name finds the unattached sessions of that name.
func TestCandidateSessionsByRosterID(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		st := eng.open(t)
		if err := st.PutCandidates(ctx, []Candidate{{CandidateID: "s-001", Name: "Ada Lovelace"}, {CandidateID: "s-002", Name: "Ada Lovelace"},
			{CandidateID: "s-003", Name: "Grace Hopper"}}); err != nil {
			t.Fatal(err)
		}
		for i, s := range []struct{ id, name, candidateID string }{
			{"cs-1", "Ada Lovelace", "s-001"},
			{"cs-2", "Ada Lovelace", "s-002"}, // the namesake
			{"cs-3", "Ada Lovelace", ""},      // no id: found by name
			{"cs-4", "A. Lovelace", "s-001"},  // another spelling, the same person
			{"cs-5", "Grace Hopper", ""},
		} {
			createSession(t, st, Meta{ID: s.id, Exam: testExam(), Candidate: s.name, StartedAt: fixtureStart.Add(time.Duration(i) * time.Minute)})
			if s.candidateID != "" {
				if err := st.AttachCandidate(ctx, s.id, s.candidateID); err != nil {
					t.Fatal(err)
				}
			}
		}
		for arg, want := range map[string][]string{
			"s-001":        {"cs-1", "cs-3", "cs-4"},
			"s-002":        {"cs-2", "cs-3"},
			"s-003":        {"cs-5"},
			"Ada Lovelace": {"cs-3"},
			"Grace Hopper": {"cs-5"},
			"nobody":       nil,
		} {
			got, err := st.CandidateSessions(ctx, arg)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("CandidateSessions(%q) = %v, want %v", arg, got, want)
			}
		}
	})
}

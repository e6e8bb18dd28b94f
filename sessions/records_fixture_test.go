package sessions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// openRecords opens a fresh store on the engine, closed when the test ends, and the data
// directory of its files: the store's own on SQLite, a directory of its own beside PostgreSQL.
func (e testEngine) openRecords(t *testing.T, opts ...Option) (*Store, string) {
	t.Helper()
	st := e.open(t, opts...)
	if st.Engine() == EngineSQLite {
		return st, st.Dir()
	}
	return st, t.TempDir()
}

// person is one candidate's records in a test store: a session with every kind of data the
// store keeps about it, and the words only this candidate's records hold.
type person struct {
	id, name string
	// phrase is a sentence only this candidate said (the transcript's own trace).
	phrase string
	// recordings are the session's audio files in the data directory.
	recordings []string
}

// seedPerson gives st a complete, locked, marked session for a candidate called name, started
// at start: events (the candidate says phrase), a control-room command, join codes naming the
// candidate, two recordings under dataDir/sessions/<id>, a marker's mark, a final mark and the
// lock, and log lines in dataDir/examtui.log naming the session.
func seedPerson(t *testing.T, st *Store, dataDir, id, name string, start time.Time) person {
	t.Helper()
	ctx := context.Background()
	p := person{id: id, name: name, phrase: "my answer is " + strings.ToLower(strings.ReplaceAll(name, " ", "-")) + "-unique-words"}
	dir := filepath.Join(dataDir, "sessions", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, track := range []string{"candidate.wav", "examiner.wav"} {
		path := filepath.Join(dir, track)
		if err := os.WriteFile(path, []byte("RIFF audio of "+name), 0o600); err != nil {
			t.Fatal(err)
		}
		p.recordings = append(p.recordings, path)
	}
	createSession(t, st, Meta{ID: id, Exam: testExam(), Candidate: name, Input: runtime.SourceTyped, StartedAt: start, Recordings: p.recordings})
	if _, err := st.SendCommand(ctx, Command{SessionID: id, Kind: CommandAdmin, Action: "say", Text: "Thank you, " + name, Sender: "proctor"}); err != nil {
		t.Fatal(err)
	}
	evs := examEvents(t, id, start)
	last := evs[len(evs)-1]
	said := newScript(t, id, last.Timestamp)
	said.seq = last.Seq - 1
	said.after(0, cand("wrapup", "seg-name", p.phrase+", says "+name, 0.9, 1))
	last.Seq++
	j := openJournal(t, st, id)
	publishAll(t, j, append(evs[:len(evs)-1], said.events[0], last))
	closeJournal(t, j)
	h := sha256.Sum256([]byte("code-" + id))
	if err := st.CreateJoinCode(ctx, JoinCode{CodeHash: hex.EncodeToString(h[:]), Room: "room-" + id, Identity: "candidate",
		DisplayName: name, Created: start, Expires: start.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	at := start.Add(time.Hour)
	for _, m := range []Mark{
		{SessionID: id, Criterion: "proposes_options", Marker: "marker-a", Level: "analysis", Marks: 2, Justification: name + " weighed two options", At: at},
	} {
		if err := st.SetMark(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := st.SetFinalMark(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.LockMarks(ctx, MarkLock{SessionID: id, Marker: "lead", At: at, Digest: "d-" + id, Manifest: "{}"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dataDir, "examtui.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "time=%s level=INFO msg=\"session started\" session=%s\n", start.Format(time.RFC3339), id)
	fmt.Fprintf(f, "time=%s level=INFO msg=\"exam ended\" session=%s state=completed\n", start.Add(time.Minute).Format(time.RFC3339), id)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// traces walks every table of the store (from the schema catalog, so a table added later is
// walked too) and every file under dataDir, and returns where any of words appears: the
// leftovers of a deletion. The access log may name the session id (the tombstone and who saw
// it), never anything else.
func traces(t *testing.T, st *Store, dataDir string, id string, words ...string) []string {
	t.Helper()
	ctx := context.Background()
	cols, err := st.tableColumns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for table, cs := range cols {
		if len(cs) == 0 {
			continue
		}
		rows, err := st.db.QueryContext(ctx, `SELECT * FROM `+table)
		if err != nil {
			t.Fatalf("walk %s: %v", table, err)
		}
		n := 0
		for rows.Next() {
			n++
			vals := make([]any, len(cs))
			ptrs := make([]any, len(cs))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				text := fmt.Sprint(v)
				if b, ok := v.([]byte); ok {
					text = string(b)
				}
				look := words
				if table != "access_log" {
					look = append([]string{id}, words...)
				}
				for _, w := range look {
					if strings.Contains(text, w) {
						found = append(found, fmt.Sprintf("table %s row %d column %d holds %q", table, n, i, w))
					}
				}
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	err = filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dataDir, path)
		if strings.Contains(rel, id) {
			found = append(found, fmt.Sprintf("file %s is named for the session", rel))
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		look := append([]string{id}, words...)
		if strings.HasPrefix(d.Name(), DBFile) {
			// The database file holds the access log, which names the session; its bytes
			// must hold nothing else of it (secure_delete, checkpoint).
			look = words
		}
		for _, w := range look {
			if bytes.Contains(data, []byte(w)) {
				found = append(found, fmt.Sprintf("file %s holds %q", rel, w))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

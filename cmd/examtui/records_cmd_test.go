package main

import (
	"archive/zip"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
)

// recordRehearsalAt records the example rehearsal for candidate in the store at target, with
// its two recordings in dataDir (encrypted to to, when given), and returns the session id.
func recordRehearsalAt(t *testing.T, target, dataDir, candidate string, to []age.Recipient) string {
	t.Helper()
	id := rehearseIn(t, target, candidate)
	st, err := sessions.OpenURL(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := filepath.Join(dataDir, "sessions", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for _, track := range []string{"candidate.wav", "examiner.wav"} {
		p := filepath.Join(dir, track)
		if err := os.WriteFile(p, []byte("RIFF the voice of "+candidate), 0o600); err != nil {
			t.Fatal(err)
		}
		if len(to) > 0 {
			if p, err = atrest.EncryptFile(p, to); err != nil {
				t.Fatal(err)
			}
		}
		recs = append(recs, p)
	}
	if err := st.SetRecordings(context.Background(), id, recs); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRecordsCommands governs records from the command line on both engines: every command
// that reads or changes a session's records appends to the access log, audit log filters it,
// the subject-access archive holds one candidate's records (recordings decrypted with the
// identity; a clear error without it), delete needs --force past locked marks and leaves a
// tombstone, the purge follows the config file, and audit verify finds an edited entry.
func TestRecordsCommands(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		dataDir := t.TempDir()
		id, err := age.GenerateX25519Identity()
		if err != nil {
			t.Fatal(err)
		}
		keyFile := filepath.Join(t.TempDir(), "records.key")
		if err := os.WriteFile(keyFile, []byte(id.String()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(cfg, []byte("records:\n  recipients: ["+id.Recipient().String()+"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("EXAMTUI_CONFIG", cfg)
		to, _ := atrest.Recipients([]string{id.Recipient().String()})
		priya := recordRehearsalAt(t, target, dataDir, "Priya Raman", to)
		other := recordRehearsalAt(t, target, dataDir, "Omar Other", to)
		run := func(args ...string) (string, error) {
			t.Helper()
			out, errOut, err := runCmd(t, "", append([]string{"--data-dir", dataDir, "--store", target}, args...)...)
			return out + errOut, err
		}
		must := func(args ...string) string {
			t.Helper()
			out, err := run(args...)
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return out
		}
		must("sessions", "show", priya)
		must("sessions", "export", priya, "--format", "jsonl")
		must("replay", priya, "--json", "--speed", "16", "--gap-cap", "1ms")
		// The recordings are encrypted at rest: replay plays them with the identity only.
		if _, err := run("replay", priya, "--json", "--speed", "16", "--gap-cap", "1ms", "--audio"); err == nil || !strings.Contains(err.Error(), "--identity") {
			t.Fatalf("replay --audio of encrypted recordings without the identity: %v", err)
		}
		must("replay", priya, "--json", "--speed", "16", "--gap-cap", "1ms", "--audio", "--identity", keyFile)
		for _, c := range []string{"options", "clientele", "resources", "communication"} {
			must("marks", "set", priya, "--criterion", c, "--level", "none", "--justification", "as heard")
		}
		must("marks", "show", priya)
		must("marks", "queue", "--exam", "hospitality-oral-b2")
		must("marks", "export", "--exam", "hospitality-oral-b2")

		// Subject access: without the identity the encrypted recordings are a clear error.
		zipPath := filepath.Join(t.TempDir(), "priya.zip")
		if out, err := run("candidates", "export", "Priya Raman", "--out", zipPath, "--plain"); err == nil || !strings.Contains(err.Error(), "--identity") {
			t.Fatalf("export of encrypted recordings without the identity: %v\n%s", err, out)
		}
		must("candidates", "export", "Priya Raman", "--out", zipPath, "--plain", "--identity", keyFile)
		z, err := zip.OpenReader(zipPath)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range z.File {
			names = append(names, f.Name)
			r, _ := f.Open()
			b := make([]byte, 1<<20)
			n, _ := r.Read(b)
			_ = r.Close()
			if strings.Contains(string(b[:n]), "Omar") || strings.Contains(string(b[:n]), other) {
				t.Errorf("%s holds the other candidate's records", f.Name)
			}
			if strings.HasSuffix(f.Name, "candidate.wav") && string(b[:n]) != "RIFF the voice of Priya Raman" {
				t.Errorf("recording in the archive = %q, want it decrypted", b[:n])
			}
		}
		_ = z.Close()
		for _, want := range []string{"sessions/" + priya + "/transcript.txt", "sessions/" + priya + "/marks.json", "sessions/" + priya + "/recordings/candidate.wav"} {
			if !slices.Contains(names, want) {
				t.Errorf("archive lacks %s: %v", want, names)
			}
		}
		// With records.recipients and no --plain the archive is encrypted to them.
		encZip := filepath.Join(t.TempDir(), "priya.zip")
		must("candidates", "export", "Priya Raman", "--out", encZip, "--identity", keyFile)
		if _, err := atrest.Open(encZip+atrest.Suffix, nil); err == nil {
			t.Error("the encrypted archive opened without an identity")
		}

		must("marks", "lock", priya)
		if out, err := run("sessions", "delete", priya, "--yes"); err == nil || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("delete with locked marks: %v\n%s", err, out)
		}
		out := must("sessions", "delete", priya, "--yes", "--force", "--reason", "erasure requested by Priya Raman")
		if !strings.Contains(out, "Deleted session "+priya) || !strings.Contains(out, "marks") {
			t.Errorf("delete said:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(dataDir, "sessions", priya)); !os.IsNotExist(err) {
			t.Errorf("the recordings' folder stayed: %v", err)
		}

		var log []sessions.AccessEntry
		if err := json.Unmarshal([]byte(must("audit", "log", "--session", priya, "--json")), &log); err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, e := range log {
			actions = append(actions, e.Action.String())
			if strings.Contains(e.Detail, "Priya") {
				t.Errorf("entry %d names the candidate: %q", e.Seq, e.Detail)
			}
		}
		for _, want := range []string{"sessions.show", "sessions.export", "replay", "marks.set", "marks.show", "candidates.export", "marks.lock", "sessions.delete"} {
			if !slices.Contains(actions, want) {
				t.Errorf("the access log of %s lacks %s: %v", priya, want, actions)
			}
		}
		if out := must("audit", "log", "--who", "nobody-at-all"); strings.Contains(out, "sessions.show") {
			t.Errorf("audit log --who nobody:\n%s", out)
		}
		if out := must("audit", "log"); !strings.Contains(out, "exam hospitality-oral-b2") {
			t.Errorf("the exam-wide marks commands are not in the log:\n%s", out)
		}
		if out := must("audit", "verify"); !strings.Contains(out, "intact") {
			t.Errorf("audit verify:\n%s", out)
		}
		// No policy: purge says so.
		if out := must("sessions", "purge"); !strings.Contains(out, "No retention policy") {
			t.Errorf("purge without a policy:\n%s", out)
		}
		if err := os.WriteFile(cfg, []byte("records:\n  retention:\n    recordings: 1d\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if out := must("sessions", "purge", "--dry-run"); !strings.Contains(out, "Nothing to purge") {
			t.Errorf("purge of fresh records:\n%s", out)
		}

		// An entry edited behind the store's back is found.
		tamper(t, target)
		if out, err := run("audit", "verify"); err == nil || !strings.Contains(err.Error(), "was changed") {
			t.Fatalf("audit verify after an edit: %v\n%s", err, out)
		}
	})
}

// tamper edits the access log's first entry as someone with the database could.
func tamper(t *testing.T, target string) {
	t.Helper()
	driver, dsn := "pgx", target
	stmts := []string{`ALTER TABLE access_log DISABLE TRIGGER USER`}
	if !sessions.IsPostgresURL(target) {
		driver, dsn = "sqlite", filepath.Join(target, sessions.DBFile)
		stmts = []string{`DROP TRIGGER access_log_no_update`}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, q := range append(stmts, `UPDATE access_log SET who = 'someone-else' WHERE seq = 1`) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

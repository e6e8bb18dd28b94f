package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// TestStoreMultiProcessPostgres runs several real `examtui run --headless` processes on one
// PostgreSQL database at once, each with its own session, while another process lists the
// sessions over and over. Every process's printed events are stored as printed, under its
// own session; the lists always parse and never show a session that is not one of them.
func TestStoreMultiProcessPostgres(t *testing.T) {
	bin := examtuiBinary(t)
	url := pgtest.NewDB(t)
	t.Setenv(sessions.EnvStore, url)
	const n = 4
	procs := make([]*headlessProc, n)
	for i := range procs {
		procs[i] = startHeadless(t, bin, 0, "--data-dir", t.TempDir(), "run", "demo", "--headless", "--json",
			"--candidate", fmt.Sprintf("Candidate %d", i))
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var lists, maxSeen int
	var listErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		listDir := t.TempDir()
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, err := exec.Command(bin, "--data-dir", listDir, "sessions", "list", "--json").Output()
			if err != nil {
				listErr = fmt.Errorf("sessions list: %w", err)
				return
			}
			var rows []sessions.ListRow
			if err := json.Unmarshal(out, &rows); err != nil {
				listErr = fmt.Errorf("sessions list --json: %w\n%s", err, out)
				return
			}
			for _, r := range rows {
				if !strings.HasPrefix(r.Candidate, "Candidate ") {
					listErr = fmt.Errorf("listed a session nobody ran: %+v", r)
					return
				}
			}
			lists++
			maxSeen = max(maxSeen, len(rows))
		}
	}()

	// The answers go out line by line, each process in turn, like candidates answering at
	// once: the reader lists while all of them write.
	for _, p := range procs {
		p.waitEvent(0, func(ev runtime.Event) bool { return ev.Seq >= 8 }, 20*time.Second)
	}
	for _, line := range crashScript {
		for _, p := range procs {
			n := len(p.events())
			p.write(line)
			p.waitEvent(n, marker(line), 10*time.Second)
		}
	}
	for _, p := range procs {
		_ = p.stdin.Close()
	}
	for i, p := range procs {
		if killed, code := p.wait(60 * time.Second); killed || code != 0 {
			t.Fatalf("process %d: exit %d; stderr:\n%s", i, code, p.stderr.String())
		}
	}
	close(stop)
	wg.Wait()
	if listErr != nil {
		t.Fatal(listErr)
	}
	t.Logf("the reader listed %d times while %d processes wrote (up to %d sessions seen)", lists, n, maxSeen)
	if lists < 2 || maxSeen != n {
		t.Errorf("the reader listed %d times and saw at most %d sessions; want several lists seeing all %d", lists, maxSeen, n)
	}

	st, err := sessions.OpenURL(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List(context.Background())
	st.Close()
	if err != nil || len(list) != n {
		t.Fatalf("%d sessions stored, want %d (%v)", len(list), n, err)
	}
	seen := map[string]bool{}
	for i, p := range procs {
		printed := p.events()
		if len(printed) == 0 {
			t.Fatalf("process %d printed nothing", i)
		}
		id := printed[0].SessionID
		if seen[id] {
			t.Fatalf("two processes printed session %s", id)
		}
		seen[id] = true
		stored := loadChecked(t, "", id, sessions.StatusCompleted, printed)
		if len(stored) != len(printed) {
			t.Errorf("process %d: printed %d events, stored %d", i, len(printed), len(stored))
		}
		for _, s := range list {
			if s.ID == id && s.Candidate != fmt.Sprintf("Candidate %d", i) {
				t.Errorf("session %s of process %d records candidate %q", id, i, s.Candidate)
			}
		}
	}
}

// TestSessionsMigrateCommand copies a data directory into PostgreSQL with the real command,
// twice (the second copies nothing), and reads the session back through --store: the export is
// byte-identical, and the password never appears in the command's output.
func TestSessionsMigrateCommand(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, err := runCmd(t, strings.Join(crashScript, "\n")+"\n", "--data-dir", dir, "--log-file", "-",
		"run", "demo", "--headless", "--json", "--candidate", "Priya"); err != nil {
		t.Fatalf("headless run: %v\n%s", err, errOut)
	}
	url := pgtest.NewDB(t)
	pw := pgtest.Shared(t).Password()
	for i, want := range []string{"1 copied, 0 already there", "0 copied, 1 already there"} {
		out, errOut, err := runCmd(t, "", "--data-dir", dir, "sessions", "migrate", "--to", url)
		if err != nil {
			t.Fatalf("migrate %d: %v\n%s", i+1, err, errOut)
		}
		if !strings.Contains(out, want) || strings.Contains(out+errOut, pw) || !strings.Contains(out, "xxxxx") {
			t.Errorf("migrate %d printed %q, want %q with the password masked", i+1, out, want)
		}
	}
	local, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	remote, _, err := runCmd(t, "", "--data-dir", dir, "--store", url, "sessions", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if local != remote {
		t.Errorf("sessions list differs:\nlocal  %s\nremote %s", local, remote)
	}
	var rows []sessions.ListRow
	if err := json.Unmarshal([]byte(remote), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("remote list: %v %s", err, remote)
	}
	a, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "export", rows[0].ID, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := runCmd(t, "", "--data-dir", dir, "--store", url, "sessions", "export", rows[0].ID, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if a != b || len(a) == 0 {
		t.Errorf("exports differ (%d vs %d bytes)", len(a), len(b))
	}
	if _, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "migrate"); err == nil {
		t.Error("migrate without --to succeeded")
	}
}

// TestHeadlessPostgresDown stops the database in the middle of a real headless exam: the
// process stops with a clear error, every event it printed is stored, and once the database is
// back the session (interrupted) resumes and completes.
func TestHeadlessPostgresDown(t *testing.T) {
	bin := examtuiBinary(t)
	srv := pgtest.Shared(t)
	url := pgtest.NewDB(t)
	t.Setenv(sessions.EnvStore, url)
	p := startHeadless(t, bin, 0, "--data-dir", t.TempDir(), "run", "demo", "--headless", "--json")
	if !p.waitEvent(0, func(ev runtime.Event) bool { return ev.Seq >= 8 }, 20*time.Second) {
		t.Fatalf("no opening question; stderr:\n%s", p.stderr.String())
	}
	n := len(p.events())
	p.write(crashScript[0])
	p.waitEvent(n, marker(crashScript[0]), 10*time.Second)
	p.waitQuiet(50 * time.Millisecond)

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	restarted := false
	defer func() {
		if !restarted {
			_ = srv.Start(context.Background())
		}
	}()
	for _, line := range crashScript[1:] {
		p.write(line)
	}
	_ = p.stdin.Close()
	killed, code := p.wait(60 * time.Second)
	if killed || code == 0 {
		t.Fatalf("with the database down the run exited %d (killed %v); stderr:\n%s", code, killed, p.stderr.String())
	}
	errOut := p.stderr.String()
	t.Logf("exit %d; stderr: %s", code, errOut)
	if strings.Contains(errOut, pgtest.Shared(t).Password()) {
		t.Error("stderr shows the database password")
	}
	printed := p.events()
	id := printed[0].SessionID

	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	restarted = true
	stored := loadChecked(t, "", id, sessions.StatusInterrupted, printed)
	if len(stored) < len(printed) {
		t.Fatalf("printed %d events, stored %d", len(printed), len(stored))
	}
	remaining, _ := remainingLines(stored)
	q := startHeadless(t, bin, 0, "--data-dir", t.TempDir(), "run", "--resume", id, "--headless", "--json")
	for _, line := range remaining {
		q.write(line)
	}
	_ = q.stdin.Close()
	if killed, code := q.wait(60 * time.Second); killed || code != 0 {
		t.Fatalf("resumed run: exit %d; stderr:\n%s", code, q.stderr.String())
	}
	all := loadChecked(t, "", id, sessions.StatusCompleted, printed)
	checkPrinted(t, all, q.events(), int64(len(stored))+1)
}

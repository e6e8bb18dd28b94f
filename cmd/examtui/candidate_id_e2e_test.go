package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/sessions"
)

// TestCandidateIDReachesTheSession: `dispatch --candidate-id` and `token --link --candidate-id`
// attach the roster candidate to the session a real worker runs on a real LiveKit server, and
// an id the roster does not hold is refused before anything is dispatched or stored.
func TestCandidateIDReachesTheSession(t *testing.T) {
	p := newPool(t)
	p.startWorker("w1")
	roster := filepath.Join(t.TempDir(), "roster.csv")
	if err := os.WriteFile(roster, []byte("candidate_id,name\ns-001,Ada Lovelace\ns-002,Grace Hopper\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := []string{"--data-dir", p.data}
	if out, errOut, err := runCmd(t, "", append(store, "candidates", "import", roster)...); err != nil {
		t.Fatalf("candidates import: %v\n%s%s", err, out, errOut)
	}

	// Refused: an id the roster does not hold, before anything is dispatched (the check comes
	// before the dispatch) or a link stored.
	if _, _, err := p.tryDispatch("r-none", "hotel", "r-none", append(store, "--candidate-id", "s-009")...); !errors.Is(err, sessions.ErrNoCandidate) ||
		!strings.Contains(err.Error(), `--candidate-id "s-009"`) {
		t.Errorf("dispatch of a candidate not in the roster: %v, want %v naming the id", err, sessions.ErrNoCandidate)
	}
	link := append(store, "token", "--link", "--room", "r-link", "--identity", "cand-link", "--role", "candidate", "--serve-url", "http://127.0.0.1:9")
	if _, _, err := runCmd(t, "", append(link, "--candidate-id", "s-009")...); !errors.Is(err, sessions.ErrNoCandidate) {
		t.Errorf("a join link for a candidate not in the roster: %v, want %v", err, sessions.ErrNoCandidate)
	}
	if _, _, err := runCmd(t, "", append(store, "token", "--room", "r", "--identity", "c", "--role", "candidate", "--api-key", "k",
		"--api-secret", "s", "--candidate-id", "s-001")...); err == nil || !strings.Contains(err.Error(), "--link") {
		t.Errorf("--candidate-id on a plain token: %v, want an error pointing at --link", err)
	}

	// dispatch --candidate-id: the worker's session carries the id from the dispatch.
	p.dispatchExam("r-dispatch", "hotel", "r-dispatch", append(store, "--candidate-id", "s-001")...)
	p.join("r-dispatch", "cand-dispatch")
	p.waitAttached("r-dispatch", "s-001")

	// token --link --candidate-id: the link's store row names the candidate, and the session
	// of the room it admits to is attached when that identity arrives.
	out, errOut, err := runCmd(t, "", append(link, "--candidate-id", "s-002")...)
	if err != nil || !strings.Contains(out, "/join/") {
		t.Fatalf("token --link --candidate-id: %v\n%s%s", err, out, errOut)
	}
	p.dispatchExam("r-link", "hotel", "r-link")
	p.join("r-link", "cand-link")
	p.waitAttached("r-link", "s-002")
}

// waitAttached waits until the session whose candidate is room carries roster candidate id.
func (p *pool) waitAttached(room, id string) {
	p.t.Helper()
	st, err := sessions.OpenURL(context.Background(), p.storeTarget(), sessions.WithRecovery(false))
	if err != nil {
		p.t.Fatal(err)
	}
	defer st.Close()
	testutil.Eventually(p.t, 30*time.Second, func() bool {
		s := p.session(room)
		if s == nil {
			return false
		}
		c, _, err := st.CandidateOf(context.Background(), s.ID)
		return err == nil && c.CandidateID == id
	}, room+"'s session attached to "+id)
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

func TestTokenCommand(t *testing.T) {
	t.Setenv("LIVEKIT_API_KEY", "key")
	t.Setenv("LIVEKIT_API_SECRET", "0123456789abcdef0123456789abcdef")
	t.Setenv("LIVEKIT_URL", "ws://127.0.0.1:7880")
	cases := []struct {
		role    string
		publish bool
		hint    string
	}{
		{"candidate", true, "meet.livekit.io"},
		{"examiner", false, "examtui watch"},
		{"bot", true, "run the bot"},
	}
	for _, tc := range cases {
		t.Run(tc.role, func(t *testing.T) {
			out, errOut, err := runCmd(t, "", "token", "--room", "r1", "--identity", "p-"+tc.role, "--role", tc.role, "--ttl", "30m")
			if err != nil {
				t.Fatalf("%v: %s", err, errOut)
			}
			jwt := strings.TrimSpace(out)
			if strings.Contains(jwt, "\n") {
				t.Fatalf("stdout holds more than the token: %q", out)
			}
			v, err := auth.ParseAPIToken(jwt)
			if err != nil {
				t.Fatal(err)
			}
			claims, grants, err := v.Verify("0123456789abcdef0123456789abcdef")
			if err != nil {
				t.Fatal(err)
			}
			if grants.Attributes[livekit.RoleAttribute] != tc.role || grants.Video.Room != "r1" || grants.Identity != "p-"+tc.role {
				t.Errorf("grants = %+v", grants)
			}
			if grants.Video.GetCanPublish() != tc.publish {
				t.Errorf("canPublish = %v", grants.Video.GetCanPublish())
			}
			if ttl := claims.ExpiresAt.Sub(claims.NotBefore.Time); ttl != 30*time.Minute {
				t.Errorf("ttl = %s", ttl)
			}
			if !strings.Contains(errOut, tc.hint) {
				t.Errorf("join hint %q lacks %q", errOut, tc.hint)
			}
		})
	}
}

func TestTokenCommandErrors(t *testing.T) {
	t.Setenv("LIVEKIT_API_KEY", "")
	t.Setenv("LIVEKIT_API_SECRET", "")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing role", []string{"token", "--room", "r", "--identity", "i"}, "role"},
		{"bad role", []string{"token", "--room", "r", "--identity", "i", "--role", "admin", "--api-key", "k", "--api-secret", "s"}, "unknown role"},
		{"no credentials", []string{"token", "--room", "r", "--identity", "i", "--role", "candidate"}, "LIVEKIT_API_KEY"},
		{"bad ttl", []string{"token", "--room", "r", "--identity", "i", "--role", "candidate", "--api-key", "k", "--api-secret", "s", "--ttl", "-1h"}, "TTL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runCmd(t, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if out != "" {
				t.Errorf("printed %q on failure", out)
			}
		})
	}
}

// TestWatchCommandJSON runs `examtui watch --json --commands` against a real server and bot:
// it prints every event as a JSON line and sends typed commands to the bot.
func TestWatchCommandJSON(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commands := make(chan livekit.ExaminerCommand, 4)
	bot, err := livekit.Join(ctx, livekit.Config{URL: srv.URL, Token: srv.Token("bot", livekit.RoleBot)},
		livekit.WithExaminerCommand(func(c livekit.ExaminerCommand) { commands <- c }))
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	evs := []runtime.Payload{
		&runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady},
		&runtime.EvidenceUpdatePayload{NodeID: "n1", SignalType: "proposes_options", RubricLevel: "analysis", Excerpt: "x"},
		&runtime.ExamCompletedPayload{State: runtime.StateCompleted, NodesVisited: []string{"n1"}},
	}
	for i, p := range evs[:2] {
		ev, err := runtime.NewEvent("s1", int64(i+1), time.Now(), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := bot.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}

	stdinR, stdinW := ioPipe(t)
	done := make(chan struct{})
	var out, errOut string
	var runErr error
	go func() {
		defer close(done)
		var o, e strings.Builder
		runErr = execRoot(ctx, stdinR, &o, &e, "watch", "--url", srv.URL, "--api-key", srv.APIKey, "--api-secret", srv.Secret,
			"--room", srv.Room, "--identity", "examiner-cli", "--json", "--commands")
		out, errOut = o.String(), e.String()
	}()

	// The history is replayed to the watcher when it arrives; then it sends a command.
	testutil.Eventually(t, 20*time.Second, func() bool { return apptest.HasParticipant(bot, "examiner-cli") }, "the watcher to join")
	// The bogus line first: a command is read once the one before it has the bot's receipt,
	// and watch ends as soon as exam_completed arrives.
	if _, err := stdinW.Write([]byte("bogus\nqueue Ask about staffing.\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-commands:
		want := livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: runtime.AdminQueued, Text: "Ask about staffing.", Sender: "examiner-cli"}
		if c.ID == "" {
			t.Error("the command has no id: watch asks for a receipt")
		}
		c.Received, c.ID = time.Time{}, ""
		if c != want {
			t.Errorf("command = %+v, want %+v", c, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the bot received no command")
	}
	last, err := runtime.NewEvent("s1", 3, time.Now(), evs[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Publish(last); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("watch did not end after exam_completed")
	}
	stdinW.Close()
	if runErr != nil {
		t.Fatalf("watch: %v: %s", runErr, errOut)
	}
	var seqs []int64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev runtime.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		seqs = append(seqs, ev.Seq)
	}
	if len(seqs) != 3 || seqs[0] != 1 || seqs[1] != 2 || seqs[2] != 3 {
		t.Fatalf("watch printed seqs %v, want [1 2 3]:\n%s", seqs, out)
	}
	if !strings.Contains(errOut, "unknown operator command") {
		t.Errorf("the bogus command was not reported: %q", errOut)
	}
}

// ioPipe is an os.Pipe closed at the end of the test, standing in for a terminal's stdin.
func ioPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestRoomTokenRefused: a token for another room or role is refused before anything happens,
// in words that say which (a bot joined the token's room while every message named --room,
// and watch with a candidate's token waited for events that never came); no session is left
// behind. No server is needed: nothing is dialled.
func TestRoomTokenRefused(t *testing.T) {
	mint := func(room, id string, role livekit.Role) string {
		tok, err := livekit.NewToken("devkey", "secret-secret-secret-secret-secret", room, id, role)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	data := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"bot token for another room", []string{"--data-dir", data, "run", "--room", "s3", "--url", "ws://127.0.0.1:9", "--token", mint("s4", "bot", livekit.RoleBot), "--headless"},
			`the token admits to room "s4", not "s3"`},
		{"candidate token as the bot", []string{"--data-dir", data, "run", "--room", "s3", "--url", "ws://127.0.0.1:9", "--token", mint("s3", "c", livekit.RoleCandidate), "--headless"},
			"examtui.role is candidate, not bot"},
		{"watch with a candidate token", []string{"watch", "--url", "ws://127.0.0.1:9", "--token", mint("s3", "c", livekit.RoleCandidate)},
			"examtui.role is candidate, not examiner"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, _, err := runCmdContext(ctx, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	out, _, err := runCmd(t, "", "--data-dir", data, "sessions", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, `"id"`) {
		t.Fatalf("a refused run left a session: %s", out)
	}
}

// TestErrorsPrintedMasked: the one place that prints a command's error masks join tokens and
// keys in it (a failed join printed the server's "invalid token: eyJ…" whole).
func TestErrorsPrintedMasked(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJ2aWRlbyI6eyJyb29tIjoiZXhhbSJ9fQ.Q2hlY2tzdW1TaWduYXR1cmVWYWx1ZQ"
	for _, err := range []error{
		fmt.Errorf("join room: unauthorized: invalid token: %s, error: signature is invalid", jwt),
		&exitError{code: 3, msg: "refused " + jwt},
	} {
		var b strings.Builder
		code := printError(&b, err)
		if strings.Contains(b.String(), jwt) || !strings.Contains(b.String(), "[REDACTED]") {
			t.Errorf("printed %q", b.String())
		}
		if code == 0 {
			t.Errorf("exit status 0 for %v", err)
		}
	}
}

// TestWatchIdentityTaken: a second watch with an identity already in the room is refused at once
// in plain words (it fought the first for the identity and failed with "could not connect after
// timeout", or won and cut the first watch off).
func TestWatchIdentityTaken(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	firstCtx, stopFirst := context.WithCancel(ctx)
	first := make(chan error, 1)
	args := []string{"watch", "--url", srv.URL, "--api-key", srv.APIKey, "--api-secret", srv.Secret, "--room", srv.Room, "--identity", "examiner-dup", "--json"}
	go func() {
		_, _, err := runCmdContext(firstCtx, "", args...)
		first <- err
	}()
	defer func() { stopFirst(); <-first }()
	testutil.Eventually(t, 30*time.Second, func() bool {
		in, err := livekit.IdentityInRoom(ctx, srv.URL, srv.APIKey, srv.Secret, srv.Room, "examiner-dup")
		return err == nil && in
	}, "the first watch in the room")
	_, _, err := runCmdContext(ctx, "", args...)
	if err == nil || !strings.Contains(err.Error(), `the identity "examiner-dup" is already in room`) {
		t.Fatalf("second watch: %v", err)
	}
}

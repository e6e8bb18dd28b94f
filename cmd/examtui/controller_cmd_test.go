package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/controlhttp"
	"github.com/examtui/examtui/internal/testutil"
)

// TestControllerCommand: `examtui controller` refuses to listen off loopback without a token;
// on loopback it serves a session that `sessions show` then reads from the same store, and it
// stops cleanly when its context ends (SIGINT), the unfinished session left resumable.
func TestControllerCommand(t *testing.T) {
	t.Setenv(controlhttp.EnvToken, "")
	_, _, err := runCmd(t, "", "controller", "demo", "--addr", "0.0.0.0:0")
	if !errors.Is(err, controlhttp.ErrNoToken) {
		t.Fatalf("off loopback without a token: %v", err)
	}

	const token = "cmd-test-token"
	t.Setenv(controlhttp.EnvToken, token)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- execRoot(ctx, strings.NewReader(""), pw, io.Discard, "--data-dir", dir, "controller", "demo", "--addr", "127.0.0.1:0")
		pw.Close()
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	banner := testutil.Recv(t, lines, 30*time.Second, "the controller's banner")
	i := strings.Index(banner, "http://")
	if i < 0 {
		t.Fatalf("banner %q", banner)
	}
	base := strings.Fields(banner[i:])[0]

	post := func(path, body string) map[string]any {
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %v %v", path, resp.StatusCode, out, err)
		}
		return out
	}
	u := post("/v1/sessions", `{"candidate":"Ada","model":"test-model"}`)
	id, _ := u["sessionId"].(string)
	if u["node"] != "welcome" || id == "" {
		t.Fatalf("create: %v", u)
	}
	u = post("/v1/sessions/"+id+"/turns", `{"text":"I am Ada, on the hospitality course.","confidence":0.93,"observation":
		{"signals":[],"answerQuality":"substantive","needsFollowUp":false,"evidenceSufficient":true,
		 "anxietyDetected":false,"distressDetected":false,"spokenText":"Thank you, Ada."}}`)
	if u["node"] != "scenario-hotel-breakfast" {
		t.Fatalf("turn 1: %v", u)
	}
	u = post("/v1/sessions/"+id+"/turns", `{"text":"We could open a second buffet line.","confidence":0.9}`)
	say, _ := json.Marshal(u["say"])
	if u["node"] != "scenario-hotel-breakfast" || !bytes.Contains(say, []byte(`"source":"fallback"`)) {
		t.Fatalf("turn 2 without a tool call: the controller's fallback: %v", u)
	}

	cancel()
	if err := testutil.Recv(t, done, 30*time.Second, "the controller to stop"); err != nil {
		t.Fatalf("controller stopped with %v", err)
	}
	out, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "show", id)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pipecat:test-model", "interrupted", "evidence\\_sufficient → scenario-hotel-breakfast", "1 invalid"} {
		if !strings.Contains(out, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, out)
		}
	}
}

package controlhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// TestRelayInstructions: the bot's model never sees the supervising examiner's instructions,
// so an immediate one in a Pipecat session follows the offline examiner's rule: a line
// addressed to the candidate is said, anything else is not actionable and nothing is said. It
// used to take the malformed-reply path (a canned line, a system_error, a step towards
// failover) for want of an observation to relay.
func TestRelayInstructions(t *testing.T) {
	ctx := context.Background()
	store, srv, hs := newStoreServer(t)
	resp, err := http.Post(hs.URL+"/v1/sessions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	x, ok := srv.Exam(created.SessionID)
	if !ok {
		t.Fatalf("no session %q", created.SessionID)
	}
	for _, a := range []runtime.AdminInstruction{
		{Mode: runtime.AdminImmediate, Text: "The candidate looks tired, wrap up the breakfast question soon."},
		{Mode: runtime.AdminImmediate, Text: "Ask the candidate to speak up."},
	} {
		if err := x.Controller.Admin(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	var statuses []runtime.AdminStatus
	var said []string
	testutil.Eventually(t, 10*time.Second, func() bool {
		statuses, said = nil, nil
		for _, e := range storedEvents(t, store, created.SessionID) {
			switch p, _ := e.Decode(); p := p.(type) {
			case *runtime.AdminInstructionPayload:
				statuses = append(statuses, p.Status)
			case *runtime.SpokenPayload:
				said = append(said, p.Text)
			case *runtime.SystemErrorPayload:
				t.Fatalf("system_error: %s", p.Message)
			}
		}
		return len(statuses) == 4
	}, "both instructions settled")
	want := []runtime.AdminStatus{runtime.AdminReceived, runtime.AdminNotActionable, runtime.AdminReceived, runtime.AdminApplied}
	for i := range want {
		if statuses[i] != want[i] {
			t.Fatalf("statuses %v, want %v", statuses, want)
		}
	}
	all := strings.Join(said, " | ")
	if strings.Contains(strings.ToLower(all), "tired") || !strings.Contains(strings.ToLower(all), "speak up") {
		t.Fatalf("said: %s", all)
	}
}

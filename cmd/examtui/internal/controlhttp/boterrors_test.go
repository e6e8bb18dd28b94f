package controlhttp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestBotSystemErrors: a Pipecat bot whose earlier call failed reports it with its next turn
// (systemErrors), and the controller records each as a system_error before the turn; a code
// that is not the bot's is refused.
func TestBotSystemErrors(t *testing.T) {
	store, _, hs := newStoreServer(t)
	post := func(path, body string) (int, string) {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		s, _ := v["sessionId"].(string)
		if s == "" {
			s, _ = v["error"].(string)
		}
		return resp.StatusCode, s
	}
	code, id := post("/v1/sessions", `{}`)
	if code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("create: %d %s", code, id)
	}
	if code, msg := post("/v1/sessions/"+id+"/turns", `{"text":"Hi","systemErrors":[{"code":"examiner_failed","message":"x"}]}`); code != http.StatusBadRequest || !strings.Contains(msg, "controller_unreachable") {
		t.Fatalf("a code that is not the bot's: %d %q", code, msg)
	}
	body := `{"text":"I'm Kim, on the hospitality course.","systemErrors":[{"code":"controller_unreachable","message":"examtui controller at http://127.0.0.1:9 unreachable: connection refused\u001b[2J"}]}`
	if code, msg := post("/v1/sessions/"+id+"/turns", body); code != http.StatusOK {
		t.Fatalf("turn: %d %s", code, msg)
	}
	var errs []*runtime.SystemErrorPayload
	for _, e := range storedEvents(t, store, id) {
		if p, _ := e.Decode(); p != nil {
			// (The turn carried no observation: the controller's own examiner_failed follows.)
			if se, ok := p.(*runtime.SystemErrorPayload); ok && se.Code != runtime.CodeExaminerFailed {
				errs = append(errs, se)
			}
		}
	}
	if len(errs) != 1 || errs[0].Code != runtime.CodeControllerUnreachable || !strings.Contains(errs[0].Message, "connection refused") || strings.ContainsRune(errs[0].Message, 0x1b) {
		t.Fatalf("system errors %+v, want one controller_unreachable, cleaned", errs)
	}
}

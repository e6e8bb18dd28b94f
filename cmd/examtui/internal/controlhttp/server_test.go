package controlhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/controlhttp"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

func newServer(t *testing.T, opts ...controlhttp.Option) (*controlhttp.Server, *httptest.Server) {
	t.Helper()
	_, srv, hs := newStoreServer(t, opts...)
	return srv, hs
}

// newStoreServer is a controller server on the example exam over a fresh store, with the store
// for the tests that read what it recorded.
func newStoreServer(t *testing.T, opts ...controlhttp.Option) (*sessions.Store, *controlhttp.Server, *httptest.Server) {
	t.Helper()
	store, err := app.OpenStore(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv, err := controlhttp.New(store, app.Options{SpecPath: "../../../../examples/hotel-breakfast.yaml"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { srv.Close() })
	return store, srv, hs
}

// TestPipecatFlowsPythonModule runs contrib/pipecat's stdlib tests on a fresh export of the
// example exam against a real controller server on loopback.
func TestPipecatFlowsPythonModule(t *testing.T) {
	py := python3(t)
	exam, _, err := spec.CompileFile("../../../../examples/hotel-breakfast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.ExportPipecatFlows(exam)
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(t.TempDir(), "exam.flows.json")
	if err := os.WriteFile(doc, b, 0o644); err != nil {
		t.Fatal(err)
	}
	vexam, _, err := spec.CompileFile("../../../../runtime/headless/testdata/variants-exam.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vb, err := spec.ExportPipecatFlows(vexam)
	if err != nil {
		t.Fatal(err)
	}
	vdoc := filepath.Join(t.TempDir(), "variants.flows.json")
	if err := os.WriteFile(vdoc, vb, 0o644); err != nil {
		t.Fatal(err)
	}
	_, hs := newServer(t, controlhttp.WithToken(parityToken))
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_examtui_flows")
	cmd.Dir = filepath.Join("..", "..", "..", "..", "contrib", "pipecat")
	cmd.Env = append(os.Environ(), "EXAMTUI_FLOWS_JSON="+doc, "EXAMTUI_FLOWS_VARIANTS_JSON="+vdoc, "EXAMTUI_CONTROLLER_URL="+hs.URL,
		"EXAMTUI_CONTROLLER_TOKEN="+parityToken, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest test_examtui_flows: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestBadRequests: each bad request gets its status and a JSON error, and nothing is created.
func TestBadRequests(t *testing.T) {
	_, hs := newServer(t, controlhttp.WithToken("tok"), controlhttp.WithMaxBody(1024))
	for _, tc := range []struct {
		name, method, path, auth, body string
		status                         int
		want                           string
	}{
		{"no token", "POST", "/v1/sessions", "", "", 401, "bearer token"},
		{"wrong token", "POST", "/v1/sessions", "Bearer nope", "", 401, "bearer token"},
		{"unknown session", "POST", "/v1/sessions/nope/turns", "Bearer tok", `{"text":"hi"}`, 404, "unknown session"},
		{"unknown field", "POST", "/v1/sessions", "Bearer tok", `{"candidat":"x"}`, 400, "unknown field"},
		{"too large", "POST", "/v1/sessions", "Bearer tok", `{"candidate":"` + strings.Repeat("x", 2000) + `"}`, 413, "body over 1024 bytes"},
		{"no endpoint", "GET", "/v2", "Bearer tok", "", 404, "no such endpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, hs.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(body.String(), tc.want) || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d %s, want %d with %q", resp.StatusCode, body.String(), tc.status, tc.want)
			}
		})
	}
}

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8765", "", true}, {"[::1]:8765", "", true}, {"localhost:1", "", true},
		{"0.0.0.0:8765", "", false}, {"10.0.0.2:8765", "", false}, {"0.0.0.0:8765", "t", true},
	} {
		err := controlhttp.CheckListen(tc.addr, tc.token)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, controlhttp.ErrNoToken)) {
			t.Errorf("CheckListen(%q, %q) = %v", tc.addr, tc.token, err)
		}
	}
}

// TestUpdateNamesVariant: entering a node with variants, the controller's answer names the
// variant it drew and says that variant's opening, for the bot to give its model.
func TestUpdateNamesVariant(t *testing.T) {
	store, err := app.OpenStore(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv, err := controlhttp.New(store, app.Options{SpecPath: "../../../../runtime/headless/testdata/variants-exam.yaml"}, controlhttp.WithToken(parityToken))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { srv.Close() })
	req, err := http.NewRequest("POST", hs.URL+"/v1/sessions", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+parityToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var u controlhttp.Update
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil {
		t.Fatal(err)
	}
	exam, _, err := spec.CompileFile("../../../../runtime/headless/testdata/variants-exam.yaml")
	if err != nil {
		t.Fatal(err)
	}
	view, ok := exam.Node("case").WithVariant(u.Variant)
	if u.Node != "case" || u.Variant == "" || !ok {
		t.Fatalf("answer node %q variant %q", u.Node, u.Variant)
	}
	if len(u.Say) == 0 || u.Say[len(u.Say)-1].Text != view.Controller.ConversationPrompt {
		t.Errorf("said %+v, want the %s opening %q", u.Say, u.Variant, view.Controller.ConversationPrompt)
	}
}

package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/openaitest"
)

// examtui doctor checks the stages on three servers (the mark stage left unconfigured): a working LLM, a chat-only server
// given as the recogniser (404 on /audio/transcriptions), a voice from the config file where
// nothing listens. It says which works and why the others do not, exits 1, never prints a key.
func TestDoctorCommand(t *testing.T) {
	const llmKey, sttKey = "sk-llm-doctor-1a2b", "sk-stt-doctor-3c4d"
	llmSrv := openaitest.New(t, openaitest.WithAPIKey(llmKey), openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour {
		return openaitest.Content("OK")
	}))
	chatOnly := openaitest.New(t, openaitest.WithAPIKey(sttKey), openaitest.WithoutAudio())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	_ = ln.Close()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("tts:\n  baseURL: "+refused+"\n  apiKey: sk-tts-config-5e6f\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpointtest.Isolate(t, map[string]string{
		"EXAMTUI_CONFIG":       cfg,
		"EXAMTUI_LLM_BASE_URL": llmSrv.URL(), "EXAMTUI_LLM_API_KEY": llmKey, "EXAMTUI_LLM_MODEL": "llama3.1",
		"EXAMTUI_STT_BASE_URL": chatOnly.URL(), "EXAMTUI_STT_API_KEY": sttKey,
	})

	out, _, err := runCmd(t, "", "doctor")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(ee.msg, "2 of 4 stages failed") {
		t.Fatalf("doctor: err %v, want exit 1 with 2 of 4 failed\n%s", err, out)
	}
	for _, want := range []string{
		"llm  ok", "model llama3.1, key set", "works: answered a 1-token chat completion",
		"stt  failed", "no audio endpoint", "/audio/transcriptions",
		"tts  failed", "connection refused",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}

	jsonOut, _, err := runCmd(t, "", "doctor", "--json")
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("doctor --json: %v", err)
	}
	var doc struct {
		OK     bool `json:"ok"`
		Stages []struct {
			Stage, Status, Reason string
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &doc); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, jsonOut)
	}
	got := []string{}
	for _, s := range doc.Stages {
		got = append(got, s.Stage+" "+s.Status+" "+s.Reason)
	}
	if want := "llm ok |stt failed no_audio_endpoint|tts failed refused|mark not_configured "; doc.OK || strings.Join(got, "|") != want {
		t.Errorf("doctor --json: ok=%v %q, want false %q", doc.OK, strings.Join(got, "|"), want)
	}
	for _, key := range []string{llmKey, sttKey, "sk-tts-config-5e6f"} {
		if strings.Contains(out+jsonOut, key) {
			t.Errorf("doctor printed a key %q", key)
		}
	}

	// Only the LLM: all configured stages work, exit 0.
	if out, _, err := runCmd(t, "", "doctor", "--stage", "llm"); err != nil || !strings.Contains(out, "llm  ok") {
		t.Errorf("doctor --stage llm: %v\n%s", err, out)
	}
}

// With no endpoint at all every stage is not configured, which is no failure.
func TestDoctorNothingConfigured(t *testing.T) {
	endpointtest.Isolate(t, map[string]string{"EXAMTUI_CONFIG": filepath.Join(t.TempDir(), "none.yaml")})
	out, _, err := runCmd(t, "", "doctor")
	if err != nil || strings.Count(out, "not_configured") != 4 || !strings.Contains(out, "offline examiner") {
		t.Errorf("doctor: %v\n%s", err, out)
	}
}

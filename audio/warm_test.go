package audio

import (
	"context"
	"errors"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
)

// TestWarm: the OpenAI providers open their connection with a free request (the model list),
// nothing synthesised or transcribed; a server that cannot be reached gives ErrWarm, and parts
// that cannot be warmed are left alone.
func TestWarm(t *testing.T) {
	srv := openaitest.New(t)
	rec, err := NewOpenAIRecognizer(srv.URL(), "sk-test", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	tts, err := NewOpenAISpeech(srv.URL(), "sk-test", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if err := Warm(context.Background(), rec, tts, nil, "not a provider"); err != nil {
		t.Fatalf("warm: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one per provider", len(reqs))
	}
	for _, r := range reqs {
		if r.Method != "GET" || r.Path != "/v1/models" {
			t.Errorf("warming sent %s %s, want GET /v1/models", r.Method, r.Path)
		}
	}

	down, err := NewOpenAISpeech("http://127.0.0.1:1/v1", "sk-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Warm(context.Background(), down); !errors.Is(err, ErrWarm) {
		t.Errorf("unreachable server: %v, want ErrWarm", err)
	}
}

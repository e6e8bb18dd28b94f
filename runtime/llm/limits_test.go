package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime/llm"
)

// hugeArgs is a 5 MB tool-call argument string: an endpoint gone wrong.
var hugeArgs = `{"spokenText":"` + strings.Repeat("a", 5<<20) + `"}`

// TestLimits: a hang is cut at the first-token timeout, a stream that stalls after its first
// token at the same timeout, and a huge body at the cap, all without retries and quickly; a
// reply just slower than the timeout to start but then steady succeeds.
func TestLimits(t *testing.T) {
	tests := []struct {
		name     string
		b        openaitest.Behaviour
		opts     []llm.Option
		wantErr  error
		maxWall  time.Duration
		requests int
	}{
		{name: "hang", b: openaitest.Hang(), opts: []llm.Option{llm.WithFirstTokenTimeout(300 * time.Millisecond)},
			wantErr: llm.ErrFirstToken, maxWall: 2 * time.Second, requests: 1},
		{name: "slow first byte", b: openaitest.ToolCall(validArgs, openaitest.Delay(time.Second)),
			opts:    []llm.Option{llm.WithFirstTokenTimeout(300 * time.Millisecond), llm.WithMaxRetries(0)},
			wantErr: llm.ErrFirstToken, maxWall: 2 * time.Second, requests: 1},
		{name: "5 MB streamed", b: openaitest.ToolCall(hugeArgs, openaitest.Streamed(64<<10, 0)),
			wantErr: llm.ErrTooLarge, maxWall: 4 * time.Second, requests: 1},
		{name: "5 MB in one body", b: openaitest.ToolCall(hugeArgs), opts: []llm.Option{llm.WithStreaming(false)},
			wantErr: llm.ErrTooLarge, maxWall: 4 * time.Second, requests: 1},
		{name: "stall after the first token", b: openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0), openaitest.StallAfter(3)),
			opts: []llm.Option{llm.WithFirstTokenTimeout(300 * time.Millisecond)}, wantErr: llm.ErrStalled, maxWall: 1500 * time.Millisecond, requests: 1},
		{name: "steady stream after a pause within the timeout", b: openaitest.ToolCall(validArgs, openaitest.Delay(100*time.Millisecond), openaitest.Streamed(16, 20*time.Millisecond)),
			opts: []llm.Option{llm.WithFirstTokenTimeout(time.Second)}, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, answerAlways(tt.b))
			e := newExaminer(t, srv, append(fast(), tt.opts...)...)
			start := time.Now()
			reply, err := observe(t, e, context.Background(), turn())
			wall := time.Since(start)
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if tt.wantErr == nil {
				if err != nil || string(reply.Arguments) != validArgs {
					t.Fatalf("Observe = %v, %v", reply, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if wall > tt.maxWall {
				t.Errorf("failed after %v, want within %v", wall, tt.maxWall)
			}
		})
	}
}

func TestLimitOptionsValidate(t *testing.T) {
	for _, opt := range []llm.Option{llm.WithFirstTokenTimeout(0), llm.WithFirstTokenTimeout(-time.Second), llm.WithMaxReplyBytes(100)} {
		if _, err := llm.New(llm.WithBaseURL("http://127.0.0.1:1/v1"), opt); !errors.Is(err, llm.ErrInvalidOption) {
			t.Errorf("err = %v, want ErrInvalidOption", err)
		}
	}
}

package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/llm"
)

// timeoutForSuccess is a per-request timeout that a hanging attempt runs into while a good
// attempt on a loaded machine still finishes well within it.
const timeoutForSuccess = 400 * time.Millisecond

func TestRetries(t *testing.T) {
	ok := openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0))
	tests := []struct {
		name       string
		queue      []openaitest.Behaviour
		always     *openaitest.Behaviour // the default once the queue is empty
		opts       []llm.Option
		onArgs     bool
		wantErr    []error // all must match; nil means success
		wantStatus int     // of a *StatusError, when set
		requests   int
	}{
		{name: "500 then success", queue: []openaitest.Behaviour{openaitest.Status(500), ok}, requests: 2},
		{name: "502, 503 then success", queue: []openaitest.Behaviour{openaitest.Status(502), openaitest.Status(503), ok}, requests: 3},
		{name: "500 then success without streaming", queue: []openaitest.Behaviour{openaitest.Status(500), ok}, opts: []llm.Option{llm.WithStreaming(false)}, requests: 2},
		{name: "transport error then success", queue: []openaitest.Behaviour{openaitest.Disconnect(), ok}, requests: 2},
		{name: "error event mid-stream then success", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.FailAfter(2)), ok}, onArgs: true, requests: 2},
		{
			name: "error event after arguments with OnArguments", onArgs: true,
			queue:   []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0), openaitest.FailAfter(5)), ok},
			wantErr: []error{llm.ErrInterrupted, llm.ErrServer}, wantStatus: 500, requests: 1,
		},
		{name: "stream cut before arguments then success", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.CutAfter(1)), ok}, onArgs: true, requests: 2},
		{name: "stream cut mid-arguments is retried without OnArguments", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0), openaitest.CutAfter(5)), ok}, requests: 2},
		{
			name: "stream cut mid-arguments with OnArguments is not retried", onArgs: true,
			queue:   []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0), openaitest.CutAfter(5)), ok},
			wantErr: []error{llm.ErrInterrupted, llm.ErrTransport}, requests: 1,
		},
		{
			name: "500 forever", always: ptr(openaitest.Status(500)), opts: []llm.Option{llm.WithMaxRetries(3)},
			wantErr: []error{llm.ErrRetriesExhausted, llm.ErrServer}, wantStatus: 500, requests: 4,
		},
		{
			name: "no retries", always: ptr(openaitest.Status(503)), opts: []llm.Option{llm.WithMaxRetries(0)},
			wantErr: []error{llm.ErrRetriesExhausted, llm.ErrServer}, wantStatus: 503, requests: 1,
		},
		{
			name: "400 is not retried", queue: []openaitest.Behaviour{openaitest.Status(400, openaitest.ErrorBody("invalid_request_error", "invalid_value", "Invalid schema for function"))},
			wantErr: []error{llm.ErrBadRequest}, wantStatus: 400, requests: 1,
		},
		{
			name: "404 is not retried", queue: []openaitest.Behaviour{openaitest.Status(404, openaitest.ErrorBody("invalid_request_error", "model_not_found", "The model does not exist"))},
			wantErr: []error{llm.ErrBadRequest}, wantStatus: 404, requests: 1,
		},
		{
			name: "403 is not retried", queue: []openaitest.Behaviour{openaitest.Status(403)},
			wantErr: []error{llm.ErrAuth}, wantStatus: 403, requests: 1,
		},
		{
			name: "429 beyond the turn deadline fails at once", queue: []openaitest.Behaviour{openaitest.RateLimited(time.Minute)},
			wantErr: []error{llm.ErrDeadline, llm.ErrRateLimited}, wantStatus: 429, requests: 1,
		},
		{
			name: "hang forever ends at the turn deadline", always: ptr(openaitest.Hang()),
			opts:    []llm.Option{llm.WithRequestTimeout(40 * time.Millisecond), llm.WithTurnDeadline(150 * time.Millisecond), llm.WithMaxRetries(10)},
			wantErr: []error{llm.ErrDeadline, llm.ErrTimeout},
		},
		{
			name: "hang then success", queue: []openaitest.Behaviour{openaitest.Hang(), ok},
			opts: []llm.Option{llm.WithRequestTimeout(timeoutForSuccess)}, requests: 2,
		},
		{
			name: "slow first byte times out then success", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.Delay(time.Second)), ok},
			opts: []llm.Option{llm.WithRequestTimeout(timeoutForSuccess)}, requests: 2,
		},
		{
			name: "stream stalls before arguments then success", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.StallAfter(2)), ok},
			opts: []llm.Option{llm.WithRequestTimeout(timeoutForSuccess)}, onArgs: true, requests: 2,
		},
		{
			name: "stream stalls after arguments with OnArguments", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0), openaitest.StallAfter(5))},
			opts: []llm.Option{llm.WithRequestTimeout(timeoutForSuccess)}, onArgs: true,
			wantErr: []error{llm.ErrInterrupted, llm.ErrTimeout}, requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scriptedServer(t, tt.always, tt.queue...)
			e := newExaminer(t, srv, append(fast(), tt.opts...)...)
			req := turn()
			calls := 0
			if tt.onArgs {
				req.OnArguments = func([]byte) { calls++ }
			}
			reply, err := observe(t, e, context.Background(), req)
			if tt.requests > 0 && len(srv.Requests()) != tt.requests {
				t.Errorf("%d requests, want %d", len(srv.Requests()), tt.requests)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Observe: %v", err)
				}
				if string(reply.Arguments) != validArgs || reply.Attempts != tt.requests {
					t.Errorf("reply args %q attempts %d", reply.Arguments, reply.Attempts)
				}
				return
			}
			t.Logf("error: %v", err)
			if reply != nil {
				t.Errorf("reply %+v with error", reply)
			}
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("err = %v, want it to match %v", err, want)
				}
			}
			var se *llm.StatusError
			if tt.wantStatus != 0 && (!errors.As(err, &se) || se.StatusCode != tt.wantStatus) {
				t.Errorf("err = %v, want a StatusError %d", err, tt.wantStatus)
			}
			if tt.onArgs && errors.Is(err, llm.ErrInterrupted) && calls == 0 {
				t.Error("interrupted without OnArguments having been called")
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	srv := openaitest.New(t)
	const wait = 300 * time.Millisecond
	srv.Enqueue(openaitest.RateLimited(wait), openaitest.ToolCall(validArgs))
	e := newExaminer(t, srv, fast()...)
	reply, err := observe(t, e, context.Background(), turn())
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reply.Attempts != 2 || len(reqs) != 2 {
		t.Fatalf("attempts %d, requests %d", reply.Attempts, len(reqs))
	}
	// The backoff alone is at most 5ms here, so only Retry-After explains a gap this long.
	if gap := reqs[1].Time.Sub(reqs[0].Time); gap < wait {
		t.Errorf("retried after %v, Retry-After said %v", gap, wait)
	}
}

func TestCallerContextEndsTheTurn(t *testing.T) {
	t.Run("canceled", func(t *testing.T) {
		srv := openaitest.New(t, answerAlways(openaitest.Hang()))
		e := newExaminer(t, srv, fast()...)
		ctx, cancel := context.WithCancel(context.Background())
		arrived := make(chan bool, 1)
		go func() {
			arrived <- testutil.Poll(10*time.Second, func() bool { return len(srv.Requests()) > 0 })
			cancel()
		}()
		_, err := observe(t, e, ctx, turn())
		if !<-arrived {
			t.Fatal("the request never reached the server; the cancel came from the 10 s limit")
		}
		if !errors.Is(err, llm.ErrCanceled) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want ErrCanceled", err)
		}
	})
	t.Run("caller deadline shorter than the turn's", func(t *testing.T) {
		srv := openaitest.New(t, answerAlways(openaitest.Hang()))
		e := newExaminer(t, srv, fast()...)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
		defer cancel()
		_, err := observe(t, e, ctx, turn())
		if !errors.Is(err, llm.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want ErrDeadline", err)
		}
	})
}

func TestKeyNeverInErrorsOrLogs(t *testing.T) {
	var logs logBuffer
	// A server that echoes the key back in its error messages, as a careless proxy might.
	srv := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour {
		return openaitest.Status(500, openaitest.ErrorBody("server_error", "", "upstream rejected key "+testKey))
	}))
	srv.Enqueue(openaitest.Status(400, openaitest.ErrorBody("invalid_request_error", "", "bad key "+testKey)))
	e := newExaminer(t, srv, append(fast(), llm.WithLogger(logs.logger()))...)
	for range 2 {
		_, err := observe(t, e, context.Background(), turn())
		if err == nil {
			t.Fatal("no error")
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("error holds the key: %v", err)
		}
		var se *llm.StatusError
		if !errors.As(err, &se) || !strings.Contains(se.Message, "[REDACTED]") {
			t.Errorf("status error message = %+v", se)
		}
	}
	// Wrong key: the server answers 401.
	srv401 := openaitest.New(t, openaitest.WithAPIKey("sk-the-right-one"))
	e401 := newExaminer(t, srv401, append(fast(), llm.WithLogger(logs.logger()))...)
	_, err := observe(t, e401, context.Background(), turn())
	if !errors.Is(err, llm.ErrAuth) || len(srv401.Requests()) != 1 || strings.Contains(err.Error(), testKey) {
		t.Errorf("401: err = %v, %d requests", err, len(srv401.Requests()))
	}
	if strings.Contains(logs.String(), testKey) {
		t.Errorf("logs hold the key:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "llm attempt failed") {
		t.Errorf("failures were not logged:\n%s", logs.String())
	}
	if h := srv.Requests()[0].Header; h.Get("Authorization") != "" || h.Get("Content-Type") != "application/json" {
		t.Errorf("recorded header = %v", h)
	}
}

func TestTransportErrorWhenNothingListens(t *testing.T) {
	srv := openaitest.New(t)
	url := srv.URL()
	srv.Close()
	e, err := llm.New(append(fast(), llm.WithBaseURL(url), llm.WithMaxRetries(1))...)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = observe(t, e, context.Background(), turn())
	if !errors.Is(err, llm.ErrRetriesExhausted) || !errors.Is(err, llm.ErrTransport) {
		t.Errorf("err = %v, want exhausted transport retries", err)
	}
}

package llm_test

import (
	"context"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime/llm"
)

// BenchmarkObserve measures the examiner's own overhead for one turn against the loopback test
// server, which answers at once: request building, HTTP, SSE parsing, accumulation, callbacks.
func BenchmarkObserve(b *testing.B) {
	cases := []struct {
		name   string
		opts   []llm.Option
		reply  openaitest.Behaviour
		onArgs bool
	}{
		{"stream/16B-chunks/OnArguments", nil, openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0)), true},
		{"stream/16B-chunks", nil, openaitest.ToolCall(validArgs, openaitest.Streamed(16, 0)), false},
		{"stream/one-chunk", nil, openaitest.ToolCall(validArgs, openaitest.Streamed(len(validArgs), 0)), false},
		{"no-stream", []llm.Option{llm.WithStreaming(false)}, openaitest.ToolCall(validArgs), false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			reply := c.reply
			srv := openaitest.New(b, answerAlways(reply))
			e := newExaminer(b, srv, c.opts...)
			req := turn()
			calls := 0
			if c.onArgs {
				req.OnArguments = func([]byte) { calls++ }
			}
			b.ReportAllocs()
			for b.Loop() {
				r, err := e.Observe(context.Background(), req)
				if err != nil || len(r.Arguments) != len(validArgs) {
					b.Fatalf("Observe: %v", err)
				}
			}
			if c.onArgs {
				b.ReportMetric(float64(calls)/float64(b.N), "callbacks/op")
			}
		})
	}
}

package openaitest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/internal/openaitest"
)

// A 500, then a tool call streamed in 8-byte pieces: the real go-openai client sees both.
func Example() {
	srv, err := openaitest.Start(openaitest.WithAPIKey("sk-example"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	srv.Enqueue(
		openaitest.Status(500),
		openaitest.ToolCall(`{"spokenText":"Why seven?"}`, openaitest.Streamed(8, time.Millisecond)),
	)

	cfg := openai.DefaultConfig("sk-example")
	cfg.BaseURL = srv.URL()
	client := openai.NewClientWithConfig(cfg)
	req := openai.ChatCompletionRequest{
		Model:    "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Breakfast at seven."}},
	}

	_, err = client.CreateChatCompletion(context.Background(), req)
	fmt.Println("first:", err != nil)

	stream, err := client.CreateChatCompletionStream(context.Background(), req)
	if err != nil {
		panic(err)
	}
	defer stream.Close()
	args, pieces := "", 0
	for {
		chunk, err := stream.Recv()
		if err != nil {
			break
		}
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					args += tc.Function.Arguments
					pieces++
				}
			}
		}
	}
	fmt.Println("second:", args, "in", pieces, "pieces")
	fmt.Println("requests:", len(srv.Requests()), "model:", srv.ChatRequests()[1].Model)
	// Output:
	// first: true
	// second: {"spokenText":"Why seven?"} in 4 pieces
	// requests: 2 model: gpt-4o-mini
}

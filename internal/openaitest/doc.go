// Package openaitest is an OpenAI-compatible HTTP server for tests. It speaks the real wire
// protocol (JSON bodies, server-sent events, multipart uploads, OpenAI's error JSON), so the real
// go-openai client talks to it unchanged and the code under test runs exactly as in production.
//
// Endpoints:
//
//	POST /v1/chat/completions     JSON or SSE (stream: true), tool calls split over many chunks
//	POST /v1/audio/transcriptions multipart; response_format json | text | verbose_json
//	POST /v1/audio/speech         real speech from espeak-ng; response_format wav | pcm (24 kHz s16le mono)
//	GET  /v1/models               the configured model list
//
// Each endpoint takes its next scripted Behaviour from a queue, or from a default function of the
// request when the queue is empty:
//
//	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"))
//	srv.Enqueue(openaitest.Status(500))
//	srv.Enqueue(openaitest.ToolCall(`{"spokenText":"Hello"}`, openaitest.Streamed(16, 5*time.Millisecond)))
//	cfg := openai.DefaultConfig("sk-test")
//	cfg.BaseURL = srv.URL() // ends in /v1
//	... run the code under test ...
//	reqs := srv.Requests() // every request, decoded, Authorization removed
//
// Failures the server can play: HTTP errors with OpenAI's error body (Status, RateLimited with
// Retry-After), a hang until the client gives up (Hang), a dropped connection (Disconnect), a
// delay before the first byte (Delay), a stream that stalls, is cut or fails mid-way
// (StallAfter, CutAfter, FailAfter), plain content instead of a tool call (Content), and
// arguments that are not JSON (ToolCall with any string). Close unblocks every hanging handler.
package openaitest

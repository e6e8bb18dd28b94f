package controlhttp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/examtui/examtui/runtime"
)

// relay is the examiner of a Pipecat session: the bot's LLM has already made its
// report_observation call, so the relay returns exactly the arguments the bot submitted with
// the turn. None (nil) means the model made no tool call, and the controller's malformed-reply
// path applies (canned fallback, system_error, failover after repeated failures). Each
// submitted observation answers at most one examiner call: a second call in the same turn, or
// a call outside a turn (an immediate admin instruction), gets none.
type relay struct {
	name string

	mu      sync.Mutex
	pending json.RawMessage
}

func newRelay(model string) *relay {
	name := "pipecat"
	if model != "" {
		name += ":" + model
	}
	return &relay{name: name}
}

func (r *relay) Name() string { return r.name }

// offer sets the arguments the next examiner call returns.
func (r *relay) offer(args json.RawMessage) {
	r.mu.Lock()
	r.pending = args
	r.mu.Unlock()
}

// Observe returns the offered arguments, once.
func (r *relay) Observe(ctx context.Context, _ *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	args := r.pending
	r.pending = nil
	r.mu.Unlock()
	return &runtime.ExaminerReply{Arguments: args, Attempts: 1}, nil
}

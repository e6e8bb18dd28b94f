package controlhttp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
)

// relay is the examiner of a Pipecat session: the bot's LLM has already made its
// report_observation call, so the relay returns exactly the arguments the bot submitted with
// the turn. None (nil) means the model made no tool call, and the controller's malformed-reply
// path applies (canned fallback, system_error, failover after repeated failures). Each
// submitted observation answers at most one examiner call.
//
// The bot's model never sees the supervising examiner's instructions, so the relay never
// claims it acted on one: an immediate instruction (an admin run, outside any turn) is handled
// by the offline examiner's rule (a line addressed to the candidate is said, anything else is
// not actionable and nothing is said), and a queued one stays queued through relayed turns
// until an immediate one chains it.
type relay struct {
	name  string
	admin runtime.Examiner

	mu      sync.Mutex
	pending json.RawMessage
}

func newRelay(model string) (*relay, error) {
	name := "pipecat"
	if model != "" {
		name += ":" + model
	}
	admin, err := offline.New()
	if err != nil {
		return nil, err
	}
	return &relay{name: name, admin: admin}, nil
}

func (r *relay) Name() string { return r.name }

// offer sets the arguments the next examiner call returns.
func (r *relay) offer(args json.RawMessage) {
	r.mu.Lock()
	r.pending = args
	r.mu.Unlock()
}

// Observe returns the offered arguments, once; an admin run goes to the offline rule.
func (r *relay) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req != nil && req.AdminOnly {
		return r.admin.Observe(ctx, req)
	}
	r.mu.Lock()
	args := r.pending
	r.pending = nil
	r.mu.Unlock()
	var results []runtime.AdminStatus
	if req != nil && len(req.AdminInstructions) > 0 {
		results = make([]runtime.AdminStatus, len(req.AdminInstructions)) // all AdminStatusUnknown: still queued
	}
	return &runtime.ExaminerReply{Arguments: args, Attempts: 1, AdminResults: results}, nil
}

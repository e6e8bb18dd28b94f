package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/runtime"
)

var _ runtime.Examiner = (*Examiner)(nil)

// Examiner asks an OpenAI-compatible model for one report_observation per turn. It is safe for
// concurrent use.
type Examiner struct {
	cfg    config
	http   *http.Client
	client *openai.Client
	// choice is the ToolChoice requests use: cfg.toolChoice until a server refuses it.
	choice atomic.Int32
}

// New builds an examiner. With neither WithBaseURL nor WithAPIKey it returns ErrNotConfigured;
// with only a key it talks to OpenAI.
func New(opts ...Option) (*Examiner, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.baseURL == "" && cfg.apiKey == "" {
		return nil, ErrNotConfigured
	}
	if cfg.baseURL == "" {
		cfg.baseURL = DefaultBaseURL
	}
	hc := wrapClient(cfg.httpClient)
	oc := openai.DefaultConfig(cfg.apiKey)
	oc.BaseURL = cfg.baseURL
	oc.HTTPClient = hc
	e := &Examiner{cfg: cfg, http: hc, client: openai.NewClientWithConfig(oc)}
	e.choice.Store(int32(cfg.toolChoice))
	return e, nil
}

// Name is the model name.
func (e *Examiner) Name() string { return e.cfg.model }

// Streaming reports whether replies are streamed.
func (e *Examiner) Streaming() bool { return e.cfg.streaming }

// Close releases idle connections. The examiner must not be used afterwards.
func (e *Examiner) Close() error {
	e.http.CloseIdleConnections()
	return nil
}

// Observe asks for one turn's observation. It returns within the turn deadline (or ctx's, if
// sooner) with either a reply or a wrapped named error. A reply with nil Arguments means the model
// answered without calling the tool; Arguments are raw and may not be valid JSON.
//
// While streaming, req.OnArguments (if set) is called on this goroutine with a fresh copy of the
// arguments received so far, each call extending the previous one; a slow callback slows the
// read. If the stream then fails, the error wraps ErrInterrupted and no retry is made.
//
// FirstToken and Complete are measured from the start of Observe, retries included, as the
// candidate waits for them.
func (e *Examiner) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	start := time.Now()
	creq, fn, err := e.buildRequest(req)
	if err != nil {
		return nil, err
	}
	turnCtx, cancel := context.WithTimeout(ctx, e.cfg.turnDeadline)
	defer cancel()
	log := e.cfg.logger.With("model", e.cfg.model, "node", req.Node.NodeID, "stream", e.cfg.streaming)

	var last error
	attempts := 0
	failed := 0 // requests that failed and were followed by another: counted in the reply's usage
	for attempts < e.cfg.maxRetries+1 {
		attempts++
		meta := &respMeta{}
		attemptCtx, cancelAttempt := context.WithTimeout(turnCtx, e.cfg.requestTimeout)
		attemptCtx = withCap(withMeta(attemptCtx, meta), e.cfg.maxReplyBytes)
		var reply *runtime.ExaminerReply
		var partial bool
		if e.cfg.streaming {
			reply, partial, err = e.stream(attemptCtx, creq, fn, req.OnArguments, start)
		} else {
			reply, err = e.complete(attemptCtx, creq, fn)
		}
		attemptErr := attemptCtx.Err()
		cancelAttempt()
		if err == nil {
			if reply.Usage != nil {
				reply.Usage.FailedAttempts = int64(failed)
				reply.Usage.Invalid = meta.usageInvalid
			}
			reply.Attempts = attempts
			reply.Complete = time.Since(start)
			log.Debug("llm reply", "attempts", attempts, "complete", reply.Complete, "first_token", reply.FirstToken,
				"tool_call", reply.Arguments != nil)
			return reply, nil
		}
		if errors.Is(err, ErrTooLarge) || meta.tooLarge {
			log.Warn("llm reply over the size cap", "attempt", attempts, "cap", e.cfg.maxReplyBytes)
			return nil, fmt.Errorf("%w (over %d bytes)", ErrTooLarge, e.cfg.maxReplyBytes)
		}
		if errors.Is(err, ErrFirstToken) || errors.Is(err, ErrStalled) {
			log.Warn("llm stream silent too long", "attempt", attempts, "timeout", e.cfg.firstToken, "err", err)
			if partial {
				return nil, fmt.Errorf("%w: %w", ErrInterrupted, err)
			}
			return nil, err
		}
		classified, retry := e.classify(err, meta, attemptErr != nil, turnCtx)
		if classified == nil { // the turn ended
			break
		}
		if refused := toolChoiceOf(creq.ToolChoice); refusesToolChoice(err) {
			// The server does not take this form of tool_choice: ask again at once with the next
			// weaker one, which this examiner keeps for the rest of the session. The refused
			// attempt is not counted against the retries.
			if next, ok := e.downgradeToolChoice(refused); ok {
				log.Warn("llm server refused tool_choice: asking with a weaker one from now on", "refused", refused, "now", next, "err", classified)
				creq.ToolChoice = toolChoiceValue(next, fn)
				attempts--
				failed++
				continue
			}
		}
		if partial {
			// The controller may have acted on the partial arguments: a retry would contradict it.
			return nil, fmt.Errorf("%w: %w", ErrInterrupted, classified)
		}
		last = classified
		log.Warn("llm attempt failed", "attempt", attempts, "status", meta.status, "retry", retry, "err", classified)
		if !retry {
			return nil, classified
		}
		if attempts > e.cfg.maxRetries {
			break
		}
		failed++
		wait := e.backoff(attempts, meta.retryAfter)
		if dl, ok := turnCtx.Deadline(); ok && time.Until(dl) < wait {
			// Waiting would outlive the turn: fail now rather than sleep into the deadline.
			return nil, fmt.Errorf("%w: next retry in %v is past the turn deadline: %w", ErrDeadline, wait, classified)
		}
		if runtime.Sleep(turnCtx, wait) != nil {
			break
		}
	}
	return nil, e.endError(ctx, turnCtx, last, attempts)
}

// endError is the error of a turn that ran out of attempts or time.
func (e *Examiner) endError(ctx, turnCtx context.Context, last error, attempts int) error {
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%w after %s: %w", ErrCanceled, plural(attempts, "attempt"), ctx.Err())
	case turnCtx.Err() != nil:
		if last != nil {
			return fmt.Errorf("%w (%v) after %s: %w", ErrDeadline, e.cfg.turnDeadline, plural(attempts, "attempt"), last)
		}
		return fmt.Errorf("%w (%v) after %s: %w", ErrDeadline, e.cfg.turnDeadline, plural(attempts, "attempt"), turnCtx.Err())
	default:
		return fmt.Errorf("%w after %s: %w", ErrRetriesExhausted, plural(attempts, "attempt"), last)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

package app

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/offline"
)

// HoldAfter is how long the candidate waits for a slow examiner before hearing the holding
// line ("One moment, please.").
const HoldAfter = 3 * time.Second

// turnTimeoutMargin lets the examiner's own turn deadline fire (with its named error) before the
// controller's.
const turnTimeoutMargin = 2 * time.Second

// resolveLimits fills the limits the caller left zero from the environment (where the config
// file's values are too), then the defaults.
func resolveLimits(l llm.Limits) (llm.Limits, error) {
	env, err := llm.LimitsFromEnv()
	if err != nil {
		return l, err
	}
	return l.Or(env).WithDefaults(), nil
}

// ExaminerSetup says which examiner an exam runs with.
type ExaminerSetup struct {
	Kind  string // auto | offline | llm
	Model string // LLM model (overrides EXAMTUI_MODEL)
	// Limits bound a failing LLM examiner; zero fields come from the environment (and config
	// file), then the defaults.
	Limits llm.Limits
	// Override replaces the examiner built from Kind (tests, custom wiring); it gets the same
	// failover.
	Override runtime.Examiner
}

// BuildExaminer builds an exam's examiner together with the controller options that belong to
// it: the turn timeout, and for any examiner but the offline one the failover to the offline
// examiner after Limits.FailoverAfter failed turns and the holding line for a slow turn. Every
// path that runs an exam (run, run --headless, test, the worker, a room) builds its examiner
// here, so a rehearsal with `examtui test` fails over exactly as the live exam would: an
// examiner built without these options never gives up on a failing endpoint.
func BuildExaminer(s ExaminerSetup, log *slog.Logger) (runtime.Examiner, []runtime.Option, error) {
	lim, err := resolveLimits(s.Limits)
	if err != nil {
		return nil, nil, err
	}
	ex := s.Override
	if ex == nil {
		if ex, err = newExaminerWithLimits(s.Kind, s.Model, log, lim); err != nil {
			return nil, nil, err
		}
	}
	opts, err := failoverOptions(ex, lim)
	if err != nil {
		return nil, nil, err
	}
	return ex, opts, nil
}

// newExaminerWithLimits is NewExaminer with the LLM's limits set.
func newExaminerWithLimits(kind, model string, log *slog.Logger, lim llm.Limits) (runtime.Examiner, error) {
	switch kind {
	case "", ExaminerAuto:
		ep, err := endpoint.Resolve(endpoint.StageLLM)
		if err != nil {
			return nil, fmt.Errorf("LLM examiner: %w", err)
		}
		if !ep.Configured {
			return offline.New()
		}
		return newLLMWithLimits(model, log, lim)
	case ExaminerLLM:
		return newLLMWithLimits(model, log, lim)
	case ExaminerOffline:
		return offline.New()
	}
	return nil, fmt.Errorf("unknown examiner %q (want auto, offline or llm)", kind)
}

// failoverOptions give the controller the offline examiner to fall back on when ex is not the
// offline one, a holding line for slow turns, and a turn timeout just past the examiner's.
func failoverOptions(ex runtime.Examiner, lim llm.Limits) ([]runtime.Option, error) {
	opts := []runtime.Option{runtime.WithTurnTimeout(lim.Timeout + turnTimeoutMargin)}
	if _, isOffline := ex.(*offline.Examiner); isOffline {
		return opts, nil
	}
	fallback, err := offline.New()
	if err != nil {
		return nil, fmt.Errorf("offline fallback examiner: %w", err)
	}
	// The failed turns in a row together may keep the candidate waiting at most one turn
	// limit: the same bound as one turn (docs/security.md, "When the examiner fails").
	return append(opts, runtime.WithExaminerFailover(fallback, lim.FailoverAfter), runtime.WithFailoverWait(lim.Timeout),
		runtime.WithHoldingLine(HoldAfter)), nil
}

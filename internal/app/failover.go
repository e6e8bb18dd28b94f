package app

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

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

// newExaminerWithLimits is NewExaminer with the LLM's limits set.
func newExaminerWithLimits(kind, model string, log *slog.Logger, lim llm.Limits) (runtime.Examiner, error) {
	switch kind {
	case "", ExaminerAuto:
		if _, err := llm.ConfigFromEnv(); errors.Is(err, llm.ErrNotConfigured) {
			return offline.New()
		}
		return newLLMWithLimits(model, log, lim)
	case ExaminerLLM:
		return newLLMWithLimits(model, log, lim)
	}
	return NewExaminer(kind, model, log)
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
	return append(opts, runtime.WithExaminerFailover(fallback, lim.FailoverAfter), runtime.WithHoldingLine(HoldAfter)), nil
}

package llm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables for the examiner's limits (the config file's openai.firstTokenTimeout,
// openai.timeout and openai.failoverAfter set them; flags win over both).
const (
	EnvFirstTokenTimeout = "EXAMTUI_LLM_FIRST_TOKEN_TIMEOUT"
	EnvTimeout           = "EXAMTUI_LLM_TIMEOUT"
	EnvFailoverAfter     = "EXAMTUI_LLM_FAILOVER_AFTER"
)

// Limits bound a failing examiner: the wait for the first streamed token, the whole turn, and
// how many failed turns in a row hand the exam to the offline examiner. Zero fields take the
// defaults.
type Limits struct {
	FirstToken    time.Duration
	Timeout       time.Duration
	FailoverAfter int
}

// DefaultFailoverAfter is how many failed turns in a row switch to the offline examiner.
const DefaultFailoverAfter = 3

// LimitsFromEnv reads the limits from the environment.
func LimitsFromEnv() (Limits, error) { return LimitsFromLookup(os.LookupEnv) }

// LimitsFromLookup is LimitsFromEnv over any variable lookup. A malformed value is an error
// naming the variable.
func LimitsFromLookup(lookup func(string) (string, bool)) (Limits, error) {
	var l Limits
	dur := func(k string, dst *time.Duration) error {
		v, ok := lookup(k)
		if v = strings.TrimSpace(v); !ok || v == "" {
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%w: %s=%q: want a positive duration such as 5s", ErrInvalidOption, k, v)
		}
		*dst = d
		return nil
	}
	if err := dur(EnvFirstTokenTimeout, &l.FirstToken); err != nil {
		return l, err
	}
	if err := dur(EnvTimeout, &l.Timeout); err != nil {
		return l, err
	}
	if v, ok := lookup(EnvFailoverAfter); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return l, fmt.Errorf("%w: %s=%q: want a whole number of at least 1", ErrInvalidOption, EnvFailoverAfter, v)
		}
		l.FailoverAfter = n
	}
	return l, nil
}

// Or fills l's zero fields from o.
func (l Limits) Or(o Limits) Limits {
	if l.FirstToken == 0 {
		l.FirstToken = o.FirstToken
	}
	if l.Timeout == 0 {
		l.Timeout = o.Timeout
	}
	if l.FailoverAfter == 0 {
		l.FailoverAfter = o.FailoverAfter
	}
	return l
}

// WithDefaults fills zero fields with the package defaults.
func (l Limits) WithDefaults() Limits {
	return l.Or(Limits{FirstToken: DefaultFirstTokenTimeout, Timeout: DefaultTurnDeadline, FailoverAfter: DefaultFailoverAfter})
}

// Options are the examiner options for the limits (the failover is the controller's).
func (l Limits) Options() []Option {
	l = l.WithDefaults()
	return []Option{WithFirstTokenTimeout(l.FirstToken), WithTurnDeadline(l.Timeout)}
}

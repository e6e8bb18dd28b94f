package runtime

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/examtui/examtui/spec"
)

// BotEnvVar is one BOT_* environment variable (docs/exam-format.md, "Gates") and the spec setting
// it overrides for rehearsal.
type BotEnvVar struct {
	Name    string
	Setting string // the spec setting it maps onto
	Help    string
}

// BotEnvVars lists the BOT_* variables examtui honours, in the order `examtui run --help`
// lists them. The exam spec's value stands unless one of these is set for a rehearsal run.
var BotEnvVars = []BotEnvVar{
	{"BOT_FIRST_SPEAK_GATE_SECS", "policies.gates.firstSpeak", "delay before the very first examiner call after the greeting"},
	{"BOT_BEAT_HOLD_SECS", "policies.gates.beatHold", "no beat before this many seconds of the exam"},
	{"BOT_BEAT_POST_SPEAK_BUFFER_SECS", "policies.gates.postSpeakBuffer", "quiet time after the examiner speaks before a beat"},
	{"BOT_BEAT_USER_IDLE_SECS", "policies.gates.userIdle", "candidate idle time before a beat"},
	{"BOT_BEAT_USER_IDLE_TIMEOUT_SECS", "policies.gates.userIdleTimeout", "a due beat waits at most this long for the candidate to go idle"},
	{"BOT_SPEAK_GATE_DELAY_SECS", "policies.gates.speakGate", "delay before each examiner (model) call"},
	{"BOT_WRAPUP_AFTER_SECS", "beats[wrapup].atSec", "when the wrap-up beat fires, seconds into the exam"},
}

// GateOverrides are rehearsal overrides of the spec's gates (nil: the spec's value).
type GateOverrides struct {
	FirstSpeak, BeatHold, PostSpeakBuffer, UserIdle, UserIdleTimeout, SpeakGate, WrapupAfter *float64
	// Set lists the variables that were set, for the log.
	Set []string
}

func (o *GateOverrides) apply(g *spec.ResolvedGates) {
	for _, f := range []struct {
		dst *float64
		v   *float64
	}{{&g.FirstSpeak, o.FirstSpeak}, {&g.BeatHold, o.BeatHold}, {&g.PostSpeakBuffer, o.PostSpeakBuffer}, {&g.UserIdle, o.UserIdle},
		{&g.UserIdleTimeout, o.UserIdleTimeout}, {&g.SpeakGate, o.SpeakGate}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
}

// GateOverridesFromEnv reads the BOT_* variables through lookup (os.LookupEnv). A value that
// is not a non-negative number of seconds is an error naming the variable.
func GateOverridesFromEnv(lookup func(string) (string, bool)) (*GateOverrides, error) {
	o := &GateOverrides{}
	dst := map[string]**float64{
		"BOT_FIRST_SPEAK_GATE_SECS": &o.FirstSpeak, "BOT_BEAT_HOLD_SECS": &o.BeatHold, "BOT_BEAT_POST_SPEAK_BUFFER_SECS": &o.PostSpeakBuffer,
		"BOT_BEAT_USER_IDLE_SECS": &o.UserIdle, "BOT_BEAT_USER_IDLE_TIMEOUT_SECS": &o.UserIdleTimeout,
		"BOT_SPEAK_GATE_DELAY_SECS": &o.SpeakGate, "BOT_WRAPUP_AFTER_SECS": &o.WrapupAfter,
	}
	for _, v := range BotEnvVars {
		s, ok := lookup(v.Name)
		if !ok || strings.TrimSpace(s) == "" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%w: %s=%q: want a non-negative number of seconds", ErrInvalidEnv, v.Name, s)
		}
		*dst[v.Name] = &f
		o.Set = append(o.Set, v.Name)
	}
	return o, nil
}

// BotEnvHelp is the help text listing the BOT_* variables.
func BotEnvHelp() string {
	var b strings.Builder
	b.WriteString("Rehearsal overrides (console and headless runs; room exams use the spec's values):")
	for _, v := range BotEnvVars {
		fmt.Fprintf(&b, "\n  %-32s %s: %s", v.Name, v.Setting, v.Help)
	}
	return b.String()
}

// WithGateOverrides applies rehearsal overrides of the spec's gates (GateOverridesFromEnv).
func WithGateOverrides(o *GateOverrides) Option {
	return func(opts *options) error {
		opts.gateOverrides = o
		return nil
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/internal/textsafe"
)

type doctorOptions struct {
	jsonOut bool
	stages  []string
	timeout time.Duration
}

func newDoctorCmd() *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check each stage's endpoint (llm, stt, tts, mark) with one tiny request",
		Long: `Check the endpoint of each stage with one tiny request and say plainly what works,
what does not and why: the LLM answers a 1-token chat completion, STT transcribes half a
second of silence, TTS speaks one word, and the marking panel's endpoint (mark) answers a
1-token chat completion like the LLM. A stage with no endpoint is reported as not
configured (it runs offline) and is not a failure. Exit status 1 when a configured stage
fails. Keys are never printed.

Each stage's endpoint is EXAMTUI_<STAGE>_BASE_URL / _API_KEY / _MODEL / _TIMEOUT (or the
config file's llm:, stt:, tts:, mark: sections), else the shared OPENAI_BASE_URL / OPENAI_API_KEY.`,
		Example: `  examtui doctor
  examtui doctor --stage stt --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.jsonOut, "json", false, "print the results as JSON")
	f.StringSliceVar(&o.stages, "stage", nil, "check only these stages (llm, stt, tts, mark; default all)")
	f.DurationVar(&o.timeout, "timeout", 0, "bound each check (default the stage's EXAMTUI_<STAGE>_TIMEOUT, else 10s)")
	return cmd
}

func runDoctor(cmd *cobra.Command, o doctorOptions) error {
	if _, err := resolveDataDir(); err != nil { // loads the config file into the environment
		return err
	}
	stages := endpoint.Stages
	if len(o.stages) > 0 {
		stages = nil
		for _, s := range o.stages {
			st, err := endpoint.ParseStage(s)
			if err != nil {
				return fmt.Errorf("--stage: %w", err)
			}
			stages = append(stages, st)
		}
	}
	if o.timeout < 0 {
		return fmt.Errorf("--timeout %v: want a positive duration", o.timeout)
	}
	var results []endpoint.Result
	failed := 0
	for _, st := range stages {
		ep, err := endpoint.Resolve(st)
		var r endpoint.Result
		if err != nil {
			r = endpoint.Result{Stage: st, Name: st.String(), Status: endpoint.StatusFailed, Detail: err.Error()}
		} else {
			if o.timeout > 0 {
				ep.Timeout = o.timeout
			}
			r = endpoint.Check(cmd.Context(), ep, nil)
		}
		if r.Status == endpoint.StatusFailed {
			failed++
		}
		results = append(results, r)
	}
	w := cmd.OutOrStdout()
	if o.jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			OK     bool              `json:"ok"`
			Stages []endpoint.Result `json:"stages"`
		}{failed == 0, results}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintln(w, doctorLine(r))
		}
	}
	if failed > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("examtui doctor: %d of %d stages failed", failed, len(results))}
	}
	return nil
}

// doctorLine is one stage in words: `llm  ok      http://… model gpt-4o-mini (key set, 120 ms): works: …`.
func doctorLine(r endpoint.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %-14s", r.Name, r.Status)
	if r.BaseURL != "" {
		where := []string{}
		if r.Model != "" {
			where = append(where, "model "+r.Model)
		}
		key := "no key"
		if r.KeySet {
			key = "key set"
		}
		where = append(where, key)
		if r.Shared {
			where = append(where, "from OPENAI_*")
		}
		where = append(where, fmt.Sprintf("%d ms", r.Ms))
		fmt.Fprintf(&b, " %s (%s):", r.BaseURL, strings.Join(where, ", "))
	}
	b.WriteString(" " + r.Detail)
	return textsafe.Line(b.String())
}

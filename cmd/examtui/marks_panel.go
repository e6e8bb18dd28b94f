package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/sessions"
)

// proposeWithPanel runs the model panel on the session and prints it after the rule's
// proposal. A panel where no member gave a mark is printed too, then the command fails.
func proposeWithPanel(cmd *cobra.Command, st *sessions.Store, s *marking.Session, p *marking.Proposal, asJSON bool) error {
	pn, err := buildPanel(slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	in := panel.Input{SessionID: s.ID, Criteria: panel.CriteriaFrom(s.Exam.Marking, s.Exam.Evidence), Segments: panel.SegmentsFrom(s.Events)}
	res, runErr := pn.Run(cmd.Context(), in)
	if res == nil {
		return runErr
	}
	// The run is evidence: stored with the session (the lock covers it), shown by marks show.
	if _, err := marking.SavePanelRun(cmd.Context(), st, s.ID, res, time.Now()); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if asJSON {
		if err := writeJSON(w, struct {
			*marking.Proposal
			Panel *panel.Result `json:"panel"`
		}{p, res}); err != nil {
			return err
		}
		return runErr
	}
	if err := writeProposal(w, p); err != nil {
		return err
	}
	if err := writePanel(w, res); err != nil {
		return err
	}
	if errors.Is(runErr, panel.ErrNoMarks) {
		return fmt.Errorf("the model panel gave no mark: %w", runErr)
	}
	return runErr
}

// writePanel prints the panel's levels per criterion (flagged ones marked for a human), each
// member's rationale and citations, the members that failed and the marks rejected.
func writePanel(w io.Writer, r *panel.Result) error {
	alpha := "undefined: " + r.AlphaNote
	if r.Alpha != nil {
		alpha = fmt.Sprintf("%.2f", *r.Alpha)
	}
	fmt.Fprintf(w, "\nModel panel (%d members; Krippendorff's α ordinal %s)\n", len(r.Members), alpha)
	for _, c := range r.Criteria {
		agr := "-"
		if c.Agreement != nil {
			agr = fmt.Sprintf("%.2f", *c.Agreement)
		}
		flag := ""
		if c.Flagged {
			flag = " — FOR A HUMAN: " + c.Why
		}
		fmt.Fprintf(w, "%s: %s, agreement %s, spread %d%s\n", c.Criterion, orDash(c.Proposed), agr, c.Spread, flag)
		for _, l := range c.Levels {
			lvl := l.Level
			if l.Revised() {
				lvl += " (revised from " + l.FirstLevel + ")"
			}
			fmt.Fprintf(w, "  %s %s [%s]: %s\n", textsafe.Line(l.Member), lvl, strings.Join(l.Segments, ", "), textsafe.Line(l.Rationale))
		}
	}
	for _, m := range r.Members {
		if m.Error != "" {
			fmt.Fprintf(w, "member %s failed: %s\n", textsafe.Line(m.Name), textsafe.Line(m.Error))
		}
		if m.RevisionError != "" {
			fmt.Fprintf(w, "member %s kept its first marks: %s\n", textsafe.Line(m.Name), textsafe.Line(m.RevisionError))
		}
		for _, rj := range m.Rejected {
			fmt.Fprintf(w, "member %s: %s round, %s rejected (%s): %s\n", textsafe.Line(m.Name), rj.Round, rj.Criterion, rj.Reason, textsafe.Line(rj.Detail))
		}
	}
	for _, model := range slices.Sorted(maps.Keys(r.Usage.LLM)) {
		u := r.Usage.LLM[model]
		fmt.Fprintf(w, "usage %s: %d calls, %d prompt and %d completion tokens\n", model, u.Turns, u.PromptTokens, u.CompletionTokens)
	}
	return nil
}

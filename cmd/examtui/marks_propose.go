package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/sessions"
)

func newMarksProposeCmd() *cobra.Command {
	var asJSON, withPanel bool
	cmd := &cobra.Command{
		Use:   "propose ID",
		Short: "The rule's proposed level per criterion, with the evidence it rests on",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				s, err := marking.Load(cmd.Context(), st, id)
				if err != nil {
					return err
				}
				p, err := marking.Propose(s.Exam, s.Events)
				if err != nil {
					return err
				}
				if withPanel {
					return proposeWithPanel(cmd, st, s, p, asJSON)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), p)
				}
				return writeProposal(cmd.OutOrStdout(), p)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&withPanel, "panel", false, "also ask the model panel (the config file's panel:, on the mark endpoint; docs/marking.md)")
	return cmd
}

func writeProposal(w io.Writer, p *marking.Proposal) error {
	for _, c := range p.Criteria {
		fmt.Fprintf(w, "%s (%s): %s, %d of %d marks. %s\n", c.Criterion, sessions.OneLine(c.Title), c.Level, c.Marks, c.MaxMarks, c.Reason)
		for _, e := range c.Evidence {
			mark := "✓ " + e.CountedAs
			if !e.Counted {
				mark = "✗"
			}
			note := ""
			if e.Note != "" {
				note = " (" + e.Note + ")"
			}
			fmt.Fprintf(w, "  seq %d %s %s %s (heard in %s), confidence %.2f: %s %q%s\n", e.Seq, orDash(e.SegmentID), e.Signal, orDash(e.Level),
				orDash(e.NodeID), e.Confidence, mark, sessions.OneLine(e.Quote), note)
		}
		if len(c.Gaps) > 0 {
			fmt.Fprintf(w, "  never evidenced: %s\n", strings.Join(c.Gaps, ", "))
		}
		for _, m := range c.Misconceptions {
			fmt.Fprintf(w, "  misconception (seq %d %s): %s: %s\n", m.Seq, orDash(m.SegmentID), sessions.OneLine(m.Concept), sessions.OneLine(m.Misconception))
		}
	}
	_, err := fmt.Fprintf(w, "Total %d of %d%s\n", p.Result.Total, p.Result.MaxTotal, resultWords(p.Result))
	return err
}

func resultWords(r marking.Result) string {
	s := ""
	if r.Passed != nil {
		s = ": fail"
		if *r.Passed {
			s = ": pass"
		}
		s += fmt.Sprintf(" (pass mark %d)", *r.PassMark)
	}
	if r.Grade != "" {
		s += ", grade " + r.Grade
	}
	return s
}

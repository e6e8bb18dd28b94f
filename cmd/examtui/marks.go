package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/sessions"
)

func newMarksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "marks",
		Short: "Mark finished exams: proposals, blind double marking, adjudication, lock, verify, export",
		Long: `Marking follows the exam's marking scheme (marking: in the exam file; docs/marking.md).
Session ids may be shortened to any unambiguous prefix.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newMarksProposeCmd(), newMarksSetCmd(), newMarksShowCmd(), newMarksQueueCmd(), newMarksAdjudicateCmd(),
		newMarksLockCmd(), newMarksVerifyCmd(), newMarksAgreementCmd(), newMarksExportCmd())
	return cmd
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

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
					return proposeWithPanel(cmd, s, p, asJSON)
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
			fmt.Fprintf(w, "  seq %d %s %s %s, confidence %.2f: %s %q%s\n", e.Seq, orDash(e.SegmentID), e.Signal, orDash(e.Level), e.Confidence, mark,
				sessions.OneLine(e.Quote), note)
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// entryFlags are the flags of a step that gives a level.
type entryFlags struct {
	criterion, level, marker, justification string
}

func (f *entryFlags) add(cmd *cobra.Command, markerHelp string) {
	cmd.Flags().StringVar(&f.criterion, "criterion", "", "criterion id (required)")
	cmd.Flags().StringVar(&f.level, "level", "", "level name, or none (required)")
	cmd.Flags().StringVar(&f.marker, "marker", "", markerHelp+" (required)")
	cmd.Flags().StringVar(&f.justification, "justification", "", "why this level (required)")
	for _, name := range []string{"criterion", "level", "marker", "justification"} {
		_ = cmd.MarkFlagRequired(name)
	}
}

func newMarksSetCmd() *cobra.Command {
	return newMarkEntryCmd("set ID", "Give a criterion a level as one marker (replaces that marker's earlier level)",
		"who is marking", marking.SetMark, func(id string, m sessions.Mark) string {
			return fmt.Sprintf("%s: %s %s = %s (%d marks)", id, sessions.OneLine(m.Marker), m.Criterion, m.Level, m.Marks)
		})
}

func newMarksAdjudicateCmd() *cobra.Command {
	return newMarkEntryCmd("adjudicate ID", "Set a criterion's final level where markers disagree",
		"who adjudicates", marking.Adjudicate, func(id string, m sessions.Mark) string {
			return fmt.Sprintf("%s: final %s = %s (%d marks), adjudicated by %s", id, m.Criterion, m.Level, m.Marks, sessions.OneLine(m.Marker))
		})
}

// newMarkEntryCmd is a command that gives one criterion a level (set, adjudicate): the entry's
// flags, record to save it, and what to print once saved.
func newMarkEntryCmd(use, short, markerHelp string,
	record func(context.Context, *sessions.Store, marking.Entry, time.Time) (sessions.Mark, error),
	saved func(id string, m sessions.Mark) string) *cobra.Command {
	var f entryFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				m, err := record(cmd.Context(), st, marking.Entry{SessionID: id, Criterion: f.criterion, Level: f.level,
					Marker: f.marker, Justification: f.justification}, time.Now())
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), saved(id, m))
				return err
			})
		},
	}
	f.add(cmd, markerHelp)
	return cmd
}

func newMarksShowCmd() *cobra.Command {
	var marker string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "A session's marking as one marker may see it (others' levels hidden until you have marked)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				v, err := marking.Show(cmd.Context(), st, id, marker)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), v)
				}
				return writeView(cmd.OutOrStdout(), v)
			})
		},
	}
	cmd.Flags().StringVar(&marker, "marker", "", "who is looking (required)")
	_ = cmd.MarkFlagRequired("marker")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeView(w io.Writer, v *marking.View) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CRITERION\tPROPOSED\tYOURS\tOTHERS\tFINAL")
	for _, c := range v.Criteria {
		yours := "-"
		if c.Own != nil {
			yours = c.Own.Level
		}
		var others []string
		for _, o := range c.Others {
			others = append(others, sessions.OneLine(o.Marker)+": "+o.Level)
		}
		other := strings.Join(others, ", ")
		if c.Hidden > 0 {
			other = fmt.Sprintf("hidden until you mark (%d)", c.Hidden)
		}
		final := "-"
		if c.Final != nil {
			final = c.Final.Level
		}
		if c.Status != marking.StatusUnknown {
			final += " (" + c.Status.String() + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Criterion, c.Proposed, yours, orDash(other), final)
	}
	if v.Locked {
		fmt.Fprintln(tw, "Locked.")
	}
	return tw.Flush()
}

func newMarksQueueCmd() *cobra.Command {
	var exam, marker string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "An exam's finished sessions waiting for marks, adjudication or the lock",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			q, err := marking.Queue(cmd.Context(), st, exam, marker)
			if err != nil {
				return err
			}
			if asJSON {
				if q == nil {
					q = []marking.QueueItem{}
				}
				return writeJSON(cmd.OutOrStdout(), q)
			}
			if len(q) == 0 {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "Nothing waiting.")
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tCANDIDATE\tENDED\tWAITING FOR\tCRITERIA")
			for _, it := range q {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.SessionID, sessions.OneLine(it.Candidate), it.EndedAt.Local().Format("2006-01-02 15:04"),
					it.Reason, orDash(strings.Join(it.Criteria, ", ")))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().StringVar(&marker, "marker", "", "list what this marker has still to mark")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMarksLockCmd() *cobra.Command {
	var marker string
	cmd := &cobra.Command{
		Use:   "lock ID",
		Short: "Finalise a session's marks (refused while a criterion has no final level)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				l, err := marking.Lock(cmd.Context(), st, id, marker, time.Now())
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: locked by %s at %s, digest sha256:%s\n", id, sessions.OneLine(l.Marker), l.At.Format(time.RFC3339), l.Digest)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&marker, "marker", "", "who locks (required)")
	_ = cmd.MarkFlagRequired("marker")
	return cmd
}

func newMarksVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify ID",
		Short: "Check a locked session's events and marks against its lock (exit 1 naming what changed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				v, err := marking.Verify(cmd.Context(), st, id)
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				if v.OK() {
					_, err := fmt.Fprintf(w, "%s: ok: events and marks are as locked by %s at %s (sha256:%s)\n", id, sessions.OneLine(v.Lock.Marker),
						v.Lock.At.Format(time.RFC3339), v.Digest)
					return err
				}
				fmt.Fprintf(w, "%s: changed since the lock by %s at %s:\n", id, sessions.OneLine(v.Lock.Marker), v.Lock.At.Format(time.RFC3339))
				for _, c := range v.Changes {
					fmt.Fprintln(w, "  "+c)
				}
				return &exitError{code: 1, msg: fmt.Sprintf("examtui: %s: %v (%d)", id, marking.ErrTampered, len(v.Changes))}
			})
		},
	}
}

func newMarksAgreementCmd() *cobra.Command {
	var exam string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agreement",
		Short: "Agreement between markers across an exam's sessions (exact, Cohen's κ, Krippendorff's α)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			a, err := marking.ExamAgreement(cmd.Context(), st, exam)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), a)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "Markers: %s. κ compares the first two markers of each item; α is ordinal.\n", orDash(strings.Join(a.Markers, ", ")))
			fmt.Fprintln(tw, "CRITERION\tITEMS\tEXACT\tKAPPA\tALPHA\tNOTE")
			row := func(name string, f marking.AgreementFigures) {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", name, f.Items, figure(f.Exact), figure(f.Kappa), figure(f.Alpha), f.Undefined)
			}
			for _, c := range a.Criteria {
				row(c.Criterion, c.AgreementFigures)
			}
			row("all criteria", a.Overall)
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func figure(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *f)
}

func newMarksExportCmd() *cobra.Command {
	var exam, format string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "An exam's gradebook: candidate, session, levels, marks, total, result, markers, lock",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := marking.ParseExportFormat(format)
			if err != nil {
				return err
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			rows, scheme, err := marking.Gradebook(cmd.Context(), st, exam)
			if err != nil {
				return err
			}
			return marking.WriteGradebook(cmd.OutOrStdout(), f, rows, scheme)
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().StringVar(&format, "format", "csv", "csv or json")
	return cmd
}

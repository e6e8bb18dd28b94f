package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
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
		newMarksLockCmd(), newMarksVerifyCmd(), newMarksAgreementCmd(), newMarksExportCmd(), newMarksRosterCmd(), newMarksPublishCmd())
	return cmd
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func figure(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *f)
}

// writeList prints a listing: as JSON (an empty list, never null), the empty message when
// there is nothing, else a table of head and the lines row writes.
func writeList[T any](w io.Writer, items []T, asJSON bool, empty, head string, row func(tw io.Writer, item T)) error {
	if asJSON {
		if items == nil {
			items = []T{}
		}
		return writeJSON(w, items)
	}
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, empty)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	for _, it := range items {
		row(tw, it)
	}
	return tw.Flush()
}

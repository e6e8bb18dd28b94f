package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/examtui/examtui/marking"
)

// writeAgreement prints marks agreement's tables: per criterion, per pair of markers, per
// marker, then the warnings.
func writeAgreement(w io.Writer, a *marking.Agreement) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Markers: %s. α is ordinal over every marker; intervals are 95%% bootstrap.\n", orDash(strings.Join(a.Markers, ", ")))
	fmt.Fprintln(tw, "CRITERION\tITEMS\tEXACT\tALPHA\tNOTE")
	row := func(name string, f marking.AgreementFigures) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", name, f.Items, figure(f.Exact), withCI(f.Alpha, f.AlphaCI), f.Undefined)
	}
	for _, c := range a.Criteria {
		row(c.Criterion, c.AgreementFigures)
	}
	row("all criteria", a.Overall)
	if a.Panel != nil {
		row("model panel vs final", *a.Panel)
	}
	if len(a.Pairs) > 0 {
		fmt.Fprintln(tw, "\nPAIR\tITEMS\tEXACT\tKAPPA\tWEIGHTED KAPPA\tSESSIONS\tSAME TOTAL\tSAME BAND\tMEAN |ΔTOTAL|")
		for _, p := range a.Pairs {
			fmt.Fprintf(tw, "%s–%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p.A, p.B, p.Items, figure(p.Exact), withCI(p.Kappa, p.KappaCI),
				withCI(p.WeightedKappa, p.WeightedKappaCI), p.Sessions, figure(p.SameTotal), figure(p.SameBand), figure(p.MeanTotalDiff))
		}
	}
	if len(a.Severity) > 0 {
		fmt.Fprintln(tw, "\nMARKER\tITEMS\tSEVERITY (mean rank − final)")
		for _, s := range a.Severity {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", s.Marker, s.Items, figure(s.MeanDiff))
		}
	}
	for _, warn := range a.Warnings {
		fmt.Fprintln(tw, "warning: "+warn)
	}
	return tw.Flush()
}

func withCI(f *float64, ci *marking.Interval) string {
	if f == nil || ci == nil {
		return figure(f)
	}
	return fmt.Sprintf("%.3f [%.2f, %.2f]", *f, ci.Low, ci.High)
}

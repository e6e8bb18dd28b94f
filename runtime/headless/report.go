package headless

import (
	"github.com/examtui/examtui/internal/textsafe"

	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteText writes a readable report of one run: the verdict, what happened, each turn's
// decision and latency, and every unmet expectation with expected and actual values.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	verdict := "PASS"
	if !r.Passed {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s %s  (spec %s, examiner %s, %d steps", verdict, r.Script, r.Spec, r.Examiner, r.TurnsRun)
	if r.TurnsSkipped > 0 {
		fmt.Fprintf(&b, ", %d skipped after the exam ended", r.TurnsSkipped)
	}
	fmt.Fprintf(&b, ", %s)\n", r.WallTime.Round(100_000))
	fmt.Fprintf(&b, "  state:      %s\n", r.State)
	fmt.Fprintf(&b, "  visited:    %s\n", strings.Join(r.Visits, " → "))
	fmt.Fprintf(&b, "  evidence:   %s\n", countList(r.Evidence))
	fmt.Fprintf(&b, "  guardrails: %s\n", countList(r.Guardrails))
	fmt.Fprintf(&b, "  commands:   %s\n", countList(r.Commands))
	fmt.Fprintf(&b, "  latency:    max %.2f ms per turn\n", r.MaxTurnLatencyMs)
	if r.Voice != nil {
		r.Voice.writeText(&b)
	}
	if len(r.Turns) > 0 {
		b.WriteString("  turns:\n")
		for _, t := range r.Turns {
			said := t.Said
			if said == "" {
				said = "(silence)"
			}
			fmt.Fprintf(&b, "    %2d %-26s %-44q %-40s %7.2f ms\n", t.Turn, t.NodeID, clip(said, 42), t.Decision, t.LatencyMs)
		}
	}
	if len(r.Failures) > 0 {
		b.WriteString("  failed expectations:\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "    %s\n", f)
		}
	}
	// Node ids, decisions and failures quote the spec and the candidate: clean them like every
	// human-readable writer.
	_, err := io.WriteString(w, textsafe.Block(b.String()))
	return err
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func countList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// WriteJSON writes the results as one indented JSON array.
func WriteJSON(w io.Writer, results []*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if results == nil {
		results = []*Result{}
	}
	return enc.Encode(results)
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// RunError is a script that could not run at all (bad script, spec or examiner), for reports.
type RunError struct {
	Script string
	Err    error
}

// WriteJUnit writes JUnit XML: one test case per script, a failure per unmet expectation set,
// an error for a script that could not run.
func WriteJUnit(w io.Writer, results []*Result, runErrs []RunError) error {
	suite := junitSuite{Name: "examtui candidate scripts"}
	var total float64
	for _, r := range results {
		secs := r.WallTime.Seconds()
		total += secs
		var out strings.Builder
		_ = WriteText(&out, r)
		tc := junitCase{Name: r.Script, Classname: "examtui.test", Time: fmt.Sprintf("%.3f", secs), SystemOut: out.String()}
		if !r.Passed {
			msgs := make([]string, len(r.Failures))
			for i, f := range r.Failures {
				msgs[i] = f.String()
			}
			tc.Failure = &junitFailure{Message: fmt.Sprintf("%d expectation(s) failed", len(r.Failures)), Type: "expectation", Body: strings.Join(msgs, "\n")}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	for _, e := range runErrs {
		suite.Cases = append(suite.Cases, junitCase{Name: e.Script, Classname: "examtui.test", Time: "0.000",
			Error: &junitFailure{Message: "script could not run", Type: "error", Body: e.Err.Error()}})
		suite.Errors++
	}
	suite.Tests = len(suite.Cases)
	suite.Time = fmt.Sprintf("%.3f", total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

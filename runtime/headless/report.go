package headless

import (
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"

	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
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
	state := r.State.String()
	if r.State == runtime.StateInProgress || r.State == runtime.StatePaused {
		// Nothing ended the exam: stored, it is a session that stopped mid-exam.
		state += " (the script ended before the exam did; stored, the session lists as interrupted)"
	}
	fmt.Fprintf(&b, "  state:      %s\n", state)
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
		// The columns are as wide as their longest entry, and the decision, whose length
		// varies most, comes last: the latency column stays put.
		nodeW := 4
		for _, t := range r.Turns {
			nodeW = max(nodeW, len([]rune(t.NodeID)))
		}
		for _, t := range r.Turns {
			said := t.Said
			if said == "" {
				said = "(silence)"
			}
			fmt.Fprintf(&b, "    %2d %-*s %-44q %7.2f ms  %s\n", t.Turn, nodeW, t.NodeID, clip(said, 42), t.LatencyMs, t.Decision)
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
	keys := slices.Sorted(maps.Keys(m))
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

// The JUnit report follows the strict Ant schema (windyroad JUnit.xsd), which Jenkins' more
// lenient schema also accepts: a suite carries id, package, timestamp (no zone) and hostname
// and holds properties, its test cases, system-out and system-err, in that order; a test case
// holds at most one failure or error and nothing else.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	ID         int             `xml:"id,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties junitProperties `xml:"properties"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperties struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// JUnitOption configures WriteJUnit.
type JUnitOption func(*junitConfig)

type junitConfig struct {
	timestamp time.Time
	hostname  string
}

// WithJUnitTimestamp sets when the scripts ran (default: now).
func WithJUnitTimestamp(t time.Time) JUnitOption {
	return func(c *junitConfig) { c.timestamp = t }
}

// WithJUnitHostname sets the host the scripts ran on (default: os.Hostname, else localhost).
func WithJUnitHostname(h string) JUnitOption {
	return func(c *junitConfig) { c.hostname = h }
}

// junitPackage is the suite's package: what Ant derives from a test class's package.
const junitPackage = "examtui"

// RunError is a script that could not run at all (bad script, spec or examiner), for reports.
type RunError struct {
	Script string
	Err    error
}

// WriteJUnit writes JUnit XML: one suite, one test case per script, a failure per unmet
// expectation set, an error for a script that could not run. The scripts' text reports go to
// the suite's system-out (the strict schema has no per-case output).
func WriteJUnit(w io.Writer, results []*Result, runErrs []RunError, opts ...JUnitOption) error {
	cfg := junitConfig{timestamp: time.Now()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.hostname == "" {
		cfg.hostname, _ = os.Hostname()
	}
	if strings.TrimSpace(cfg.hostname) == "" {
		cfg.hostname = "localhost"
	}
	suite := junitSuite{Name: "examtui candidate scripts", Package: junitPackage, ID: 0,
		// The schema's timestamp has no zone: UTC, said so in the docs.
		Timestamp: cfg.timestamp.UTC().Format("2006-01-02T15:04:05"), Hostname: cfg.hostname}
	var total float64
	var out, errOut strings.Builder
	for _, r := range results {
		secs := r.WallTime.Seconds()
		total += secs
		fmt.Fprintf(&out, "=== %s\n", r.Script)
		_ = WriteText(&out, r)
		tc := junitCase{Name: r.Script, Classname: "examtui.test", Time: fmt.Sprintf("%.3f", secs)}
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
		fmt.Fprintf(&errOut, "%s: %v\n", e.Script, e.Err)
		suite.Errors++
	}
	suite.SystemOut, suite.SystemErr = out.String(), errOut.String()
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

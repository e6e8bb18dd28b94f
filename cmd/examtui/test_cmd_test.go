package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exampleScripts are the candidate scripts shipped in examples/ (embedded in the binary).
var exampleScripts = []string{"hotel-commands.yaml", "hotel-distress.yaml", "hotel-examiner.yaml", "hotel-finish.yaml",
	"hotel-low-confidence.yaml", "hotel-off-topic.yaml", "hotel-pauses.yaml", "hotel-rehearsal.yaml", "hotel-skip.yaml", "hotel-time.yaml"}

func TestTestCommand(t *testing.T) {
	scripts := "../../runtime/headless/testdata/"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"embedded example passes", []string{"test", "hotel-rehearsal.yaml"}, 0,
			[]string{"PASS hotel-rehearsal.yaml", "visited:    welcome → scenario-hotel-breakfast → scenario-staff-rota → wrapup", "commands:   repeat 1"}, nil},
		{"file scripts pass", []string{"test", scripts + "skip-allowed.yaml", scripts + "admin.yaml"}, 0,
			[]string{"PASS " + scripts + "skip-allowed.yaml", "PASS " + scripts + "admin.yaml"}, nil},
		{"wrong expectation fails", []string{"test", "hotel-rehearsal.yaml", scripts + "wrong-expectation.yaml"}, 1,
			[]string{"PASS hotel-rehearsal.yaml", "FAIL " + scripts + "wrong-expectation.yaml", "  failed expectations:\n",
				"    completed: expected true, got false (state in_progress)\n",
				"    visits: expected [welcome, wrapup], got [welcome, scenario-hotel-breakfast]\n",
				"    evidence.proposes_options: expected 2, got 0\n", "    commands.repeat: expected 1, got 0\n"}, nil},
		{"missing script", []string{"test", "no-such-script.yaml"}, 2, nil, []string{"ERROR no-such-script.yaml"}},
		{"every example script passes", append([]string{"test"}, exampleScripts...), 0,
			[]string{"PASS hotel-commands.yaml", "commands:   clarification 3, help 1, request_rephrase 1, revise_earlier_answer 1, slow_down 1, thinking_aloud 1",
				"PASS hotel-distress.yaml", "guardrails: distress 1", "PASS hotel-examiner.yaml", "PASS hotel-finish.yaml",
				"PASS hotel-low-confidence.yaml", "PASS hotel-off-topic.yaml", "guardrails: off_topic_limit 1", "PASS hotel-rehearsal.yaml",
				"PASS hotel-skip.yaml", "commands:   skip 1", "PASS hotel-time.yaml", "guardrails: time_budget 2"}, nil},
		{"example scripts from disk", []string{"test", "../../examples/hotel-skip.yaml", "../../examples/hotel-time.yaml"}, 0,
			[]string{"PASS ../../examples/hotel-skip.yaml", "PASS ../../examples/hotel-time.yaml"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runCmdExpect(t, "", tt.args, tt.code, tt.stdout, tt.stderr)
		})
	}
}

func TestTestCommandJSONAndJUnit(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "report.xml")
	out, _, err := runCmd(t, "", "test", "--json", "--junit", junit, "hotel-rehearsal.yaml", "../../runtime/headless/testdata/wrong-expectation.yaml")
	if exitCode(err) != 1 {
		t.Fatalf("exit %v", err)
	}
	var results []struct {
		Script   string
		Passed   bool
		Visits   []string
		Failures []struct{ Expectation, Expected, Actual string }
	}
	if err := json.Unmarshal([]byte(out), &results); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(results) != 2 || !results[0].Passed || results[1].Passed || len(results[1].Failures) != 4 || len(results[0].Visits) != 4 {
		t.Fatalf("results %+v", results)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("junit: %v\n%s", err, b)
	}
	s := suites.Suites[0]
	if s.Tests != 2 || s.Failures != 1 || s.Cases[0].Failure != nil || s.Cases[1].Failure == nil ||
		!strings.Contains(s.Cases[1].Failure.Body, "commands.repeat: expected 1, got 0") {
		t.Fatalf("junit %s", b)
	}
}

// TestTestCommandSessionStart: a stored scripted run starts at the real time of the run,
// unless the script pins its clock (start:), and its session says the same.
func TestTestCommandSessionStart(t *testing.T) {
	scripts := "../../runtime/headless/testdata/"
	tests := []struct {
		script string
		pinned string
	}{
		{"hotel-rehearsal.yaml", ""},
		{scripts + "admin.yaml", "2026-01-05T09:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.script), func(t *testing.T) {
			dir := t.TempDir()
			before := time.Now().Truncate(time.Millisecond)
			if _, errOut, err := runCmd(t, "", "--data-dir", dir, "--log-file", filepath.Join(dir, "log"), "test", tt.script); err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			after := time.Now()
			out, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "list", "--json")
			if err != nil {
				t.Fatal(err)
			}
			var rows []struct {
				ID        string    `json:"id"`
				StartedAt time.Time `json:"startedAt"`
			}
			if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("%v\n%s", err, out)
			}
			jsonl, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "export", rows[0].ID, "--format", "jsonl")
			if err != nil {
				t.Fatal(err)
			}
			var first struct {
				Timestamp time.Time `json:"timestamp"`
			}
			if err := json.Unmarshal([]byte(strings.SplitN(jsonl, "\n", 2)[0]), &first); err != nil {
				t.Fatal(err)
			}
			if !first.Timestamp.Equal(rows[0].StartedAt) {
				t.Errorf("session starts %v, its first event %v", rows[0].StartedAt, first.Timestamp)
			}
			if tt.pinned != "" {
				if got := rows[0].StartedAt.UTC().Format(time.RFC3339); got != tt.pinned {
					t.Errorf("pinned run started %s, want %s", got, tt.pinned)
				}
			} else if rows[0].StartedAt.Before(before) || rows[0].StartedAt.After(after) {
				t.Errorf("run started %v, not between %v and %v", rows[0].StartedAt, before, after)
			}
		})
	}
}

// strictJUnitXSD is the strict Ant JUnit schema (windyroad), transcribed in testdata.
var strictJUnitXSD = filepath.Join("..", "..", "runtime", "headless", "testdata", "junit", "ant-junit-strict.xsd")

// xmllintSchema validates file against xsd with xmllint (Debian libxml2-utils, installed by
// `make deps`); it returns xmllint's complaint, or "" when the file is valid.
func xmllintSchema(t *testing.T, xsd, file string) string {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint is needed to check JUnit reports against their schema: install libxml2-utils (make deps): %v", err)
	}
	out, err := exec.Command(bin, "--noout", "--schema", xsd, file).CombinedOutput()
	switch {
	case err == nil:
		return ""
	case strings.Contains(string(out), "failed to compile") || len(out) == 0:
		t.Fatalf("xmllint could not use the schema: %v\n%s", err, out)
	}
	return string(out)
}

// TestJUnitStrictSchema: `examtui test --junit` reports validate against the strict Ant JUnit
// schema with a real validator, whether scripts pass, fail or cannot run; and the schema
// check is real (a report without hostname and timestamp is refused).
func TestJUnitStrictSchema(t *testing.T) {
	scripts := "../../runtime/headless/testdata/"
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"pass", []string{"hotel-rehearsal.yaml"}, 0},
		{"fail", []string{"hotel-rehearsal.yaml", scripts + "wrong-expectation.yaml"}, 1},
		{"error", []string{"hotel-rehearsal.yaml", "no-such-script.yaml"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			junit := filepath.Join(dir, "report.xml")
			args := append([]string{"--data-dir", dir, "--log-file", filepath.Join(dir, "log"), "test", "--junit", junit}, tt.args...)
			if _, errOut, err := runCmd(t, "", args...); exitCode(err) != tt.code {
				t.Fatalf("exit %d (%v), want %d\n%s", exitCode(err), err, tt.code, errOut)
			}
			if msg := xmllintSchema(t, strictJUnitXSD, junit); msg != "" {
				b, _ := os.ReadFile(junit)
				t.Fatalf("report does not validate:\n%s\n%s", msg, b)
			}
			b, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			host, _ := os.Hostname()
			for _, want := range []string{`package="examtui"`, `id="0"`, `hostname="` + host + `"`, "<properties></properties>", "=== hotel-rehearsal.yaml&#xA;PASS hotel-rehearsal.yaml"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("report lacks %q:\n%s", want, b)
				}
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "lenient.xml")
	lenient := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="s" tests="1" failures="0" errors="0" time="0.1"><testcase name="c" classname="k" time="0.1"><system-out>x</system-out></testcase></testsuite></testsuites>`
	if err := os.WriteFile(bad, []byte(lenient), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := xmllintSchema(t, strictJUnitXSD, bad)
	for _, want := range []string{"timestamp", "hostname", "package"} {
		if !strings.Contains(msg, want) {
			t.Errorf("strict schema accepted a lenient report (no complaint about %s):\n%s", want, msg)
		}
	}
}

// TestTestRoomFlagsRefused checks the voice harness's flags before any script runs: --events
// needs a room, a file that cannot be created and an unknown --interrupt are refused.
func TestTestRoomFlagsRefused(t *testing.T) {
	room := []string{"--room-url", "ws://127.0.0.1:1", "--api-key", "k", "--api-secret", "s"}
	never := filepath.Join(t.TempDir(), "never.jsonl")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"--events without a room", []string{"--events", never}, "--events needs --room-url"},
		{"--events in no directory", append(room, "--events", "/nonexistent/dir/events.jsonl"), "--events: open /nonexistent/dir/events.jsonl"},
		{"unknown --interrupt", append(room, "--interrupt", "shout"), `--interrupt "shout": want native or timing`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runCmd(t, "", append([]string{"test", "hotel-rehearsal.yaml", "--no-store"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(out, "PASS") {
				t.Fatalf("err %v, out %q; want %q before any script runs", err, out, tc.want)
			}
		})
	}
	if _, err := os.Stat(never); err == nil {
		t.Error("--events without a room created its file")
	}
}

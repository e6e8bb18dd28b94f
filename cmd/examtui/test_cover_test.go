package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTestCover(t *testing.T) {
	dir := t.TempDir()
	ev := "../../runtime/headless/testdata/cover/evidence.yaml"
	di := "../../runtime/headless/testdata/cover/distress.yaml"
	tests := []struct {
		name    string
		args    []string
		code    int
		wantOut []string
	}{
		{"report", []string{"--cover", ev, di}, 0, []string{"COVERAGE cover-known", "12/38 items, 31.6%", "transitions   3/12", "- names_risk: description  ../../runtime/headless/testdata/cover/cover.yaml:16:14"}},
		{"min met", []string{"--cover-min", "30", ev, di}, 0, []string{"31.6%"}},
		{"min missed", []string{"--cover-min", "30", ev}, 1, []string{"26.3%"}},
		{"two specs", []string{"--cover", ev, "hotel-rehearsal.yaml"}, 0, []string{"COVERAGE cover-known", "COVERAGE hospitality-oral-b2"}},
		{"files", []string{"--cover-out", filepath.Join(dir, "cov.json"), ev, di}, 0, []string{"COVERAGE cover-known"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, err := runCmd(t, "", append([]string{"test", "--no-store", "--data-dir", t.TempDir()}, tc.args...)...)
			if got := exitCode(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s\n%s", got, err, tc.code, out, stderr)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.code == 1 && !strings.Contains(err.Error(), "coverage under 30%: cover-known 26.3%") {
				t.Errorf("error %q does not say which spec is under the minimum", err)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(dir, "cov.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Specs []struct {
			ExamID  string  `json:"examId"`
			Percent float64 `json:"percent"`
		} `json:"specs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Specs) != 1 || doc.Specs[0].Percent != 31.6 {
		t.Errorf("cov.json: %v %+v", err, doc)
	}
	md, err := os.ReadFile(filepath.Join(dir, "cov.md"))
	if err != nil || !strings.Contains(string(md), "Total **31.6%**") {
		t.Errorf("cov.md: %v\n%s", err, md)
	}
}

package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/spec"
)

func TestOnExaminerFailurePolicy(t *testing.T) {
	tests := []struct {
		name    string
		line    string // added under policies:, empty for none
		want    spec.ExaminerFailure
		wantErr string
	}{
		{"absent means offline", "", spec.ExaminerFailureOffline, ""},
		{"offline", "  onExaminerFailure: offline", spec.ExaminerFailureOffline, ""},
		{"interrupt", "  onExaminerFailure: interrupt", spec.ExaminerFailureInterrupt, ""},
		{"unknown", "  onExaminerFailure: panic", "", "onExaminerFailure \"panic\" is not a policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := string(examples.Demo())
			if tt.line != "" {
				src = strings.Replace(src, "policies:\n", "policies:\n"+tt.line+"\n", 1)
			}
			exam, diags, err := spec.Compile("exam.yaml", []byte(src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(fmt.Sprint(diags), tt.wantErr) {
					t.Fatalf("err = %v, diagnostics %v; want %q", err, diags, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("compile: %v\n%v", err, diags)
			}
			if got := exam.Policies.OnExaminerFailure(); got != tt.want {
				t.Errorf("policy = %s, want %s", got, tt.want)
			}
		})
	}
}

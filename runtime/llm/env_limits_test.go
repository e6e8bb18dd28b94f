package llm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/llm"
)

func TestLimitsFromLookup(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    llm.Limits
		wantErr bool
	}{
		{"none", nil, llm.Limits{}, false},
		{"all", map[string]string{llm.EnvFirstTokenTimeout: "3s", llm.EnvTimeout: " 20s ", llm.EnvFailoverAfter: "5"},
			llm.Limits{FirstToken: 3 * time.Second, Timeout: 20 * time.Second, FailoverAfter: 5}, false},
		{"bad duration", map[string]string{llm.EnvTimeout: "soon"}, llm.Limits{}, true},
		{"negative duration", map[string]string{llm.EnvFirstTokenTimeout: "-1s"}, llm.Limits{}, true},
		{"zero failover", map[string]string{llm.EnvFailoverAfter: "0"}, llm.Limits{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.LimitsFromLookup(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr {
				if !errors.Is(err, llm.ErrInvalidOption) {
					t.Fatalf("err = %v, want ErrInvalidOption", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	d := llm.Limits{Timeout: time.Second}.Or(llm.Limits{Timeout: time.Minute, FailoverAfter: 2}).WithDefaults()
	if d != (llm.Limits{FirstToken: llm.DefaultFirstTokenTimeout, Timeout: time.Second, FailoverAfter: 2}) {
		t.Errorf("Or/WithDefaults = %+v", d)
	}
}

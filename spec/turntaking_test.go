package spec

import (
	"fmt"
	"strings"
	"testing"
)

func TestPoliciesTurnTaking(t *testing.T) {
	cases := []struct {
		name    string
		yaml    string
		want    *ResolvedTurnTaking
		wantErr string
	}{
		{name: "absent: the compiled exam is unchanged", yaml: ""},
		{name: "partly set: defaults fill the rest", yaml: "  turnTaking:\n    completeDelay: 0.3\n",
			want: &ResolvedTurnTaking{SureDelay: 0.15, CompleteDelay: 0.3, MinDelay: 0.5, MaxDelay: 3}},
		{name: "a short complete wait shortens the sure one", yaml: "  turnTaking:\n    completeDelay: 0.1\n",
			want: &ResolvedTurnTaking{SureDelay: 0.1, CompleteDelay: 0.1, MinDelay: 0.5, MaxDelay: 3}},
		{name: "all set", yaml: "  turnTaking:\n    sureDelay: 0.25\n    completeDelay: 0.25\n    minDelay: 0.4\n    maxDelay: 2.5\n",
			want: &ResolvedTurnTaking{SureDelay: 0.25, CompleteDelay: 0.25, MinDelay: 0.4, MaxDelay: 2.5}},
		{name: "out of order", yaml: "  turnTaking:\n    completeDelay: 0.8\n", wantErr: "out of order"},
		{name: "sure above complete", yaml: "  turnTaking:\n    sureDelay: 0.3\n", wantErr: "out of order"},
		{name: "out of range", yaml: "  turnTaking:\n    maxDelay: 30\n", wantErr: "maxDelay 30 is out of range"},
		{name: "negative", yaml: "  turnTaking:\n    minDelay: -1\n", wantErr: "minDelay -1 is out of range"},
		{name: "unknown field", yaml: "  turnTaking:\n    fastDelay: 0.1\n", wantErr: "fastDelay"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(string(exampleSrc(t)), "policies:\n", "policies:\n"+tc.yaml, 1)
			exam, diags, err := Compile("hotel.yaml", []byte(src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(fmt.Sprint(diags)+err.Error(), tc.wantErr) {
					t.Fatalf("err %v, diagnostics %v; want %q", err, diags, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := exam.Policies.TurnTaking
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("turnTaking = %+v, want %+v", got, tc.want)
			}
		})
	}
}

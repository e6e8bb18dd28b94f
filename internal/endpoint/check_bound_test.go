package endpoint_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/internal/httpbound/boundtest"
)

// Doctor's check of every stage against an endless body, a 200 MB body, a trickle and a hang:
// it fails within its timeout and a second, and the heap stays under 100 MB above idle. Before
// the bounded reader an endless reply took gigabytes and the check overran its timeout.
func TestCheckBoundedReply(t *testing.T) {
	const timeout = 2 * time.Second
	for _, st := range endpoint.Stages {
		t.Run(st.String(), func(t *testing.T) {
			boundtest.Check(t, timeout, func(base string) error {
				r := endpoint.Check(context.Background(), endpoint.Endpoint{Stage: st, BaseURL: base, Model: "m", Timeout: timeout, Configured: true}, nil)
				if r.Status == endpoint.StatusOK {
					return nil
				}
				if r.Reason != endpoint.ReasonTooLarge && r.Reason != endpoint.ReasonTimeout {
					t.Errorf("reason %v (%s), want too_large or timeout", r.Reason, r.Detail)
				}
				return fmt.Errorf("%v: %s", r.Reason, r.Detail)
			})
		})
	}
}

package panel_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/httpbound/boundtest"
	"github.com/examtui/examtui/marking/panel"
)

// A panel whose members answer with an endless body, a 200 MB body, a trickle or a hang fails
// within its timeout and a second, with the heap under 100 MB above idle. Before the bounded
// reader an endless reply grew the process by gigabytes.
func TestPanelBoundedReply(t *testing.T) {
	const timeout = 2 * time.Second
	boundtest.Check(t, timeout, func(base string) error {
		p, err := panel.New([]panel.Member{{Model: "m", BaseURL: base}, {Model: "m", BaseURL: base}}, panel.WithTimeout(timeout))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), input())
		if err == nil {
			return nil
		}
		for _, m := range res.Members {
			t.Logf("%s: %s", m.Name, m.Error)
		}
		return err
	})
}

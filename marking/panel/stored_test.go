package panel_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

// TestPanelRunStored: two members on different models and servers; the run records each
// member's model and server (never its key), each call's round, prompt digest and reply as
// received; stored with the session and read back whole.
func TestPanelRunStored(t *testing.T) {
	first := marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "description", []string{"seg-0004"}}, mark{"evaluates", "analysis", []string{"seg-0006"}})
	revised := marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "analysis", []string{"seg-0004"}}, mark{"evaluates", "analysis", []string{"seg-0006"}})
	a, b := openaitest.New(t), openaitest.New(t)
	a.Enqueue(openaitest.ToolCall(first), openaitest.ToolCall(revised))
	b.Enqueue(openaitest.ToolCall(revised), openaitest.ToolCall(revised))
	p, err := panel.New([]panel.Member{
		{Name: "A", Model: "model-a", BaseURL: a.URL(), APIKey: "sk-secret-a"},
		{Name: "B", Model: "model-b", BaseURL: b.URL(), APIKey: "sk-secret-b"},
	}, panel.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), input())
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range res.Members {
		srv := []*openaitest.Server{a, b}[i]
		if m.Endpoint != srv.URL() || m.Model != []string{"model-a", "model-b"}[i] {
			t.Errorf("member %s: endpoint %q model %q", m.Name, m.Endpoint, m.Model)
		}
		if len(m.Calls) != 2 || m.Calls[0].Round != panel.RoundFirst || m.Calls[1].Round != panel.RoundRevision {
			t.Fatalf("member %s calls %+v", m.Name, m.Calls)
		}
		if m.Calls[0].PromptDigest == m.Calls[1].PromptDigest || !strings.HasPrefix(m.Calls[0].PromptDigest, "sha256:") {
			t.Errorf("member %s prompt digests %q, %q", m.Name, m.Calls[0].PromptDigest, m.Calls[1].PromptDigest)
		}
	}
	if res.Members[0].Calls[0].Reply != first || res.Members[0].Calls[1].Reply != revised {
		t.Errorf("replies not as received: %+v", res.Members[0].Calls)
	}
	if res.Members[0].Calls[0].PromptDigest != res.Members[1].Calls[0].PromptDigest {
		t.Error("both members got the same first prompt, but their digests differ")
	}

	ctx := context.Background()
	dir := t.TempDir()
	st, err := sessions.OpenURL(ctx, filepath.Join(dir, sessions.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Create(ctx, sessions.Meta{Exam: runtimetest.DemoExam(t, nil), Candidate: "Priya", Examiner: "offline", StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := panel.Latest(ctx, st, sess.ID); err != nil || got != nil {
		t.Fatalf("no run yet: %v, %v", got, err)
	}
	if _, err := marking.SavePanelRun(ctx, st, sess.ID, res, time.Now()); err != nil {
		t.Fatal(err)
	}
	runs, err := st.PanelRuns(ctx, sess.ID)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	if strings.Contains(string(runs[0].Result), "sk-secret") {
		t.Error("a member's API key reached the store")
	}
	got, err := panel.Latest(ctx, st, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Members[1].Calls[1].Round != panel.RoundRevision || got.Members[0].Calls[0].Reply != first || got.Criteria[1].Proposed != res.Criteria[1].Proposed {
		t.Errorf("read back %+v", got)
	}
}

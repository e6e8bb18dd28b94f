package panel_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/marking/panel"
)

var levels = []string{"description", "analysis", "evaluation"}

func input() panel.Input {
	return panel.Input{
		SessionID: "s-panel",
		Criteria: []panel.Criterion{
			{ID: "explains", Name: "Explains the mechanism", Levels: levels},
			{ID: "evidence", Name: "Uses evidence", Levels: levels},
			{ID: "evaluates", Name: "Evaluates the argument", Levels: levels},
		},
		Segments: []panel.Segment{
			{ID: "seg-0001", Speaker: "examiner", Text: "Why does demand fall when prices rise?"},
			{ID: "seg-0002", Speaker: "candidate", Text: "Because people substitute cheaper goods, so the quantity falls."},
			{ID: "seg-0003", Speaker: "examiner", Text: "What evidence supports that?"},
			{ID: "seg-0004", Speaker: "candidate", Text: "Sales of butter fell when margarine got cheaper."},
			{ID: "seg-0005", Speaker: "examiner", Text: "How far does that hold?"},
			{ID: "seg-0006", Speaker: "candidate", Text: "Not for necessities; demand there is inelastic, so the argument is limited."},
		},
	}
}

type mark struct {
	c, level string
	segs     []string
}

// marks is report_marks arguments for the marks, each with a rationale.
func marks(ms ...mark) string {
	type m struct {
		Criterion string   `json:"criterion"`
		Level     string   `json:"level"`
		Rationale string   `json:"rationale"`
		Segments  []string `json:"segments"`
	}
	var out struct {
		Marks []m `json:"marks"`
	}
	for _, x := range ms {
		segs := x.segs
		if segs == nil {
			segs = []string{}
		}
		out.Marks = append(out.Marks, m{x.c, x.level, "the candidate said so in " + strings.Join(x.segs, ", "), segs})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// A panel of five over the real go-openai client, each member on its own server: A marks
// steadily; B cites a segment that does not exist, then fixes it in the revision; C disagrees,
// gives one uncited mark, and revises one level after seeing the others; D answers 500; E hangs
// past the timeout. D and E are reported and the panel goes on. The figures are checked against
// the table below, computed by hand.
func TestPanel(t *testing.T) {
	tok := openaitest.TokenUsage(100, 20)
	a := openaitest.New(t)
	a.Enqueue(
		openaitest.ToolCall(marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "description", []string{"seg-0004"}}, mark{"evaluates", "evaluation", []string{"seg-0006"}}), tok),
		openaitest.ToolCall(marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "description", []string{"seg-0004"}}, mark{"evaluates", "evaluation", []string{"seg-0006"}}), tok),
	)
	b := openaitest.New(t)
	b.Enqueue(
		openaitest.ToolCall(marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "analysis", []string{"seg-0004", "seg-0099"}}, mark{"evaluates", "analysis", []string{"seg-0006"}}), tok),
		openaitest.ToolCall(marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "description", []string{"seg-0004"}}, mark{"evaluates", "analysis", []string{"seg-0006"}}), tok),
	)
	c := openaitest.New(t)
	c.Enqueue(
		openaitest.ToolCall(marks(mark{"explains", "evaluation", []string{"seg-0002"}}, mark{"evidence", "evaluation", []string{"seg-0004"}}, mark{"evaluates", "analysis", nil})),
		openaitest.ToolCall(marks(mark{"explains", "analysis", []string{"seg-0002"}}, mark{"evidence", "evaluation", []string{"seg-0004"}}, mark{"evaluates", "analysis", nil})),
	)
	d := openaitest.New(t)
	d.Enqueue(openaitest.Status(500))
	e := openaitest.New(t)
	e.Enqueue(openaitest.Hang())

	p, err := panel.New([]panel.Member{
		{Name: "A", Model: "model-a", BaseURL: a.URL()},
		{Name: "B", Model: "model-b", BaseURL: b.URL()},
		{Name: "C", Model: "model-c", BaseURL: c.URL()},
		{Name: "D", Model: "model-d", BaseURL: d.URL()},
		{Name: "E", Model: "model-e", BaseURL: e.URL()},
	}, panel.WithTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), input())
	if err != nil {
		t.Fatal(err)
	}

	// Hand-computed: ranks description 0, analysis 1, evaluation 2; agreement is the share of
	// member pairs with the same final level; proposed is the median (lower middle).
	//   explains:  A 1, B 1, C 2→1      pairs 3/3 agree, spread 0, median analysis
	//   evidence:  A 0, B 0 (s99 rejected first, fixed), C 2   1/3, spread 2, median description
	//   evaluates: A 2, B 1, C uncited twice (no mark)        0/1, spread 1, median analysis
	want := []struct {
		criterion, proposed string
		agreement           float64
		spread              int
		flagged             bool
		members             string
	}{
		{"explains", "analysis", 1, 0, false, "A=analysis B=analysis C=analysis(was evaluation)"},
		{"evidence", "description", 1.0 / 3, 2, true, "A=description B=description C=evaluation"},
		{"evaluates", "analysis", 0, 1, true, "A=evaluation B=analysis"},
	}
	if len(res.Criteria) != len(want) {
		t.Fatalf("%d criteria, want %d", len(res.Criteria), len(want))
	}
	for i, w := range want {
		got := res.Criteria[i]
		var ms []string
		for _, l := range got.Levels {
			s := l.Member + "=" + l.Level
			if l.Revised() {
				s += "(was " + l.FirstLevel + ")"
			}
			ms = append(ms, s)
		}
		if got.Criterion != w.criterion || got.Proposed != w.proposed || got.Agreement == nil || *got.Agreement != w.agreement ||
			got.Spread != w.spread || got.Flagged != w.flagged || strings.Join(ms, " ") != w.members {
			t.Errorf("%s: got proposed %q agreement %v spread %d flagged %v (%s) members %q\nwant %+v",
				w.criterion, got.Proposed, deref(got.Agreement), got.Spread, got.Flagged, got.Why, strings.Join(ms, " "), w)
		}
	}

	// Krippendorff's α (ordinal) over the three criteria, by hand from the coincidence matrix:
	// units {1,1,1} {0,0,2} {2,1}; o11=3, o00=1, o02=o20=1, o12=o21=1; n0=2, n1=4, n2=2, n=8;
	// δ²01 = 3² = 9, δ²02 = (8−2)² = 36, δ²12 = 3² = 9; observed Σ o·δ² = 90, expected
	// Σ n_c·n_k·δ² = 2·(72+144+72) = 576; α = 1 − 7·90/576 = −3/32.
	if res.Alpha == nil || math.Abs(*res.Alpha-(-3.0/32)) > 1e-12 {
		t.Errorf("alpha %v (%s), want -0.09375", deref(res.Alpha), res.AlphaNote)
	}

	byName := map[string]panel.MemberResult{}
	for _, m := range res.Members {
		byName[m.Name] = m
	}
	if m := byName["D"]; !m.Failed() || !strings.Contains(m.Error, "500") {
		t.Errorf("D: %+v, want a failure naming the 500", m)
	}
	if m := byName["E"]; !m.Failed() || !strings.Contains(m.Error, "no answer within 2s") {
		t.Errorf("E: %+v, want a timeout", m)
	}
	rejected := func(name string) string {
		var out []string
		for _, r := range byName[name].Rejected {
			out = append(out, r.Round.String()+" "+r.Criterion+" "+r.Reason.String()+": "+r.Detail)
		}
		return strings.Join(out, "; ")
	}
	if got, want := rejected("B"), "first evidence unknown_segment: cites seg-0099, not in the transcript"; got != want {
		t.Errorf("B rejected %q, want %q", got, want)
	}
	if got, want := rejected("C"), "first evaluates uncited: the rationale cites no transcript segment; revision evaluates uncited: the rationale cites no transcript segment"; got != want {
		t.Errorf("C rejected %q, want %q", got, want)
	}

	// The revision round: each member that replied was asked again, once, and saw the two
	// others' accepted marks (never the failed members', never a rejected mark).
	for name, srv := range map[string]*openaitest.Server{"A": a, "B": b, "C": c, "D": d, "E": e} {
		reqs := srv.ChatRequests()
		wantReqs := map[string]int{"A": 2, "B": 2, "C": 2, "D": 1, "E": 1}[name]
		if len(reqs) != wantReqs {
			t.Errorf("%s: %d requests, want %d", name, len(reqs), wantReqs)
			continue
		}
		if wantReqs < 2 {
			continue
		}
		rev := reqs[1].Messages[len(reqs[1].Messages)-1].Content
		if strings.Count(rev, "Marker ") != 2 || strings.Contains(rev, "Marker C") || strings.Contains(rev, "seg-0099") {
			t.Errorf("%s's revision prompt:\n%s", name, rev)
		}
	}
	// Usage is added up per model as the examiner's is: A's and B's servers report tokens, C's
	// the estimate; the failed members' calls brought no reply and count nothing.
	if u := res.Usage.LLM["model-a"]; u == nil || u.Turns != 2 || u.PromptTokens != 200 || u.CompletionTokens != 40 {
		t.Errorf("model-a usage %+v", u)
	}
	if u := res.Usage.LLM["model-d"]; u != nil {
		t.Errorf("model-d usage %+v, want none", u)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// A panel where every member fails says so, with each member's reason.
func TestPanelAllFail(t *testing.T) {
	a, b := openaitest.New(t), openaitest.New(t)
	a.Enqueue(openaitest.Status(500))
	b.Enqueue(openaitest.Content("I think the candidate did well."))
	p, err := panel.New([]panel.Member{{Model: "m", BaseURL: a.URL()}, {Model: "m", BaseURL: b.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), input())
	if !errors.Is(err, panel.ErrNoMarks) || res == nil || !strings.Contains(res.Members[1].Error, "no report_marks call") || res.Members[1].Name != "m#2" {
		t.Fatalf("err %v, result %+v", err, res)
	}
	for _, c := range res.Criteria {
		if !c.Flagged || c.Agreement != nil {
			t.Errorf("%+v: want flagged with no agreement", c)
		}
	}
}

func TestNewInvalid(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []panel.Member
		opts    []panel.Option
	}{
		{"one member", []panel.Member{{Model: "m", BaseURL: "http://x/v1"}}, nil},
		{"no model", []panel.Member{{BaseURL: "http://x/v1"}, {Model: "m", BaseURL: "http://x/v1"}}, nil},
		{"no server", []panel.Member{{Model: "m"}, {Model: "m", BaseURL: "http://x/v1"}}, nil},
		{"zero timeout", []panel.Member{{Model: "m", APIKey: "k"}, {Model: "m", APIKey: "k"}}, []panel.Option{panel.WithTimeout(0)}},
		{"zero spread", []panel.Member{{Model: "m", APIKey: "k"}, {Model: "m", APIKey: "k"}}, []panel.Option{panel.WithFlagSpread(0)}},
	} {
		if _, err := panel.New(tc.members, tc.opts...); !errors.Is(err, panel.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
}

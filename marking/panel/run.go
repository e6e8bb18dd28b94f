package panel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
)

// temperature is low: a marker should give the same mark for the same transcript.
const temperature = 0.2

// Run marks in with every member: a first round in which each marks alone, then one revision
// round in which each member that replied sees the others' accepted marks. It returns the
// result with an error only when the input is invalid or no member gave a mark (ErrNoMarks,
// with the result saying why each failed).
func (p *Panel) Run(ctx context.Context, in Input) (*Result, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	known := speakers(in)
	res := &Result{SessionID: in.SessionID, Members: make([]MemberResult, len(p.members))}
	for i, m := range p.members {
		res.Members[i] = MemberResult{Name: m.Name, Model: m.Model, Endpoint: endpointOf(m.BaseURL)}
	}
	var mu sync.Mutex // guards res.Usage
	each := func(round Round, msgs func(i int) []openai.ChatCompletionMessage, take func(i int, marks []Mark, rej []Rejected, err error)) {
		var wg sync.WaitGroup
		for i := range p.members {
			if msgs(i) == nil {
				continue
			}
			wg.Go(func() {
				sent := msgs(i)
				marks, rej, u, reply, err := p.ask(ctx, p.members[i], sent, in, known, round)
				mu.Lock()
				res.Usage.AddTurn(u)
				res.Members[i].Calls = append(res.Members[i].Calls, Call{Round: round, PromptDigest: promptDigest(sent), Reply: reply})
				mu.Unlock()
				take(i, marks, rej, err)
			})
		}
		wg.Wait()
	}

	first := firstMessages(in)
	replied := make([]bool, len(p.members))
	each(RoundFirst, func(int) []openai.ChatCompletionMessage { return first }, func(i int, marks []Mark, rej []Rejected, err error) {
		m := &res.Members[i]
		m.Rejected = append(m.Rejected, rej...)
		if err != nil {
			m.Error = err.Error()
			p.log.Warn("panel: member failed", "member", m.Name, "err", err)
			return
		}
		replied[i] = true
		m.First, m.Final = marks, marks
	})

	if count(replied) >= 2 {
		each(RoundRevision, func(i int) []openai.ChatCompletionMessage {
			if !replied[i] {
				return nil
			}
			var others [][]Mark
			for j := range p.members {
				if j != i && replied[j] {
					others = append(others, res.Members[j].First)
				}
			}
			return revisionMessages(in, res.Members[i].First, others)
		}, func(i int, marks []Mark, rej []Rejected, err error) {
			m := &res.Members[i]
			m.Rejected = append(m.Rejected, rej...)
			if err != nil {
				m.RevisionError = err.Error()
				p.log.Warn("panel: revision failed", "member", m.Name, "err", err)
				return
			}
			m.Final = merge(m.First, marks)
		})
	}

	var units [][]int
	for _, c := range in.Criteria {
		var levels []MemberLevel
		var ranks []int
		for _, m := range res.Members {
			f, ok := find(m.Final, c.ID)
			if !ok {
				continue
			}
			first, _ := find(m.First, c.ID)
			levels = append(levels, MemberLevel{Member: m.Name, Level: f.Level, FirstLevel: first.Level, Rationale: f.Rationale, Segments: f.Segments})
			ranks = append(ranks, c.levelIndex(f.Level))
		}
		units = append(units, ranks)
		res.Criteria = append(res.Criteria, judge(c, levels, p.flagSpread))
	}
	if a, err := marking.KrippendorffAlpha(units, marking.MetricOrdinal); err == nil {
		res.Alpha = &a
	} else {
		res.AlphaNote = err.Error()
	}
	for _, m := range res.Members {
		if !m.Failed() {
			return res, nil
		}
	}
	return res, ErrNoMarks
}

// ask makes one member's call of one round, bounded by the panel's timeout.
// It returns the reply's call arguments as sent, when there were any.
func (p *Panel) ask(ctx context.Context, m member, msgs []openai.ChatCompletionMessage, in Input, known map[string]string, round Round) (_ []Mark, _ []Rejected, _ *runtime.TurnUsage, reply string, _ error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	req := openai.ChatCompletionRequest{
		Model:      m.Model,
		Messages:   msgs,
		Tools:      []openai.Tool{tool()},
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: FunctionName}},
	}
	if !llm.ReasoningModel(m.Model) {
		req.Temperature = temperature
	}
	resp, err := m.client.CreateChatCompletion(ctx, req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, nil, nil, "", fmt.Errorf("%s round: no answer within %v: %w", round, p.timeout, err)
		}
		return nil, nil, nil, "", fmt.Errorf("%s round: %w", round, err)
	}
	u := &runtime.TurnUsage{Model: m.Model}
	// go-openai decodes an absent usage as zeros; no real request has zero prompt tokens.
	if resp.Usage.PromptTokens != 0 || resp.Usage.CompletionTokens != 0 {
		pt, ct := int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens)
		u.PromptTokens, u.CompletionTokens = &pt, &ct
	}
	args, err := callArguments(resp)
	if err != nil {
		return nil, nil, u, "", fmt.Errorf("%s round: %w", round, err)
	}
	marks, rej, err := checkMarks(args, in, known, round)
	if err != nil {
		return nil, nil, u, args, fmt.Errorf("%s round: %w", round, err)
	}
	return marks, rej, u, args, nil
}

// merge is the revision's marks, with the first round's mark kept for each criterion the
// revision left out or had rejected.
func merge(first, revised []Mark) []Mark {
	out := append([]Mark(nil), revised...)
	for _, f := range first {
		if _, ok := find(revised, f.Criterion); !ok {
			out = append(out, f)
		}
	}
	return out
}

func find(ms []Mark, criterion string) (Mark, bool) {
	for _, m := range ms {
		if m.Criterion == criterion {
			return m, true
		}
	}
	return Mark{}, false
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// promptDigest is the SHA-256 of the messages sent to a member, as JSON: a stored run names
// the prompt it answered without storing the transcript twice.
func promptDigest(msgs []openai.ChatCompletionMessage) string {
	enc, _ := json.Marshal(msgs)
	h := sha256.Sum256(enc)
	return "sha256:" + hex.EncodeToString(h[:])
}

// endpointOf is a member's server as a stored run names it: scheme, host and path, never a
// user, password or query.
func endpointOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

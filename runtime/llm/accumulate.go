package llm

import "github.com/sashabaranov/go-openai"

// accumulator rebuilds tool calls from streamed deltas. OpenAI sends an index on every delta and
// the id and name once; some local servers omit the index, or send a whole call in one delta,
// so a delta without an index continues the previous call unless it carries a new id.
type accumulator struct {
	calls   []*accCall
	byIndex map[int]*accCall
	last    *accCall
	content []byte
}

type accCall struct {
	index int
	id    string
	name  string
	args  []byte
}

func newAccumulator() *accumulator {
	return &accumulator{byIndex: map[int]*accCall{}}
}

// add folds one tool-call delta in and returns the call it extended.
func (a *accumulator) add(tc openai.ToolCall) *accCall {
	var c *accCall
	switch {
	case tc.Index != nil:
		c = a.byIndex[*tc.Index]
		if c == nil {
			c = a.open(*tc.Index)
		}
	case a.last == nil || (tc.ID != "" && a.last.id != "" && tc.ID != a.last.id):
		c = a.open(a.freeIndex())
	default:
		c = a.last
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args = append(c.args, tc.Function.Arguments...)
	a.last = c
	return c
}

func (a *accumulator) open(index int) *accCall {
	c := &accCall{index: index}
	a.byIndex[index] = c
	a.calls = append(a.calls, c)
	return c
}

// freeIndex is an index no call uses yet, for deltas that carry none.
func (a *accumulator) freeIndex() int {
	i := len(a.calls)
	for a.byIndex[i] != nil {
		i++
	}
	return i
}

// pick returns the call to report: the first named name, else the first unnamed one (servers
// that never send a name), else nil (the model called only other functions).
func (a *accumulator) pick(name string) *accCall {
	var unnamed *accCall
	for _, c := range a.calls {
		if c.name == name {
			return c
		}
		if c.name == "" && unnamed == nil {
			unnamed = c
		}
	}
	return unnamed
}

// names lists the functions called, for logs.
func (a *accumulator) names() []string {
	out := make([]string, 0, len(a.calls))
	for _, c := range a.calls {
		out = append(out, c.name)
	}
	return out
}

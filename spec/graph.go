package spec

import (
	"slices"
	"strings"
)

// graph is the node graph of a spec: successors by node index, for unique node ids only.
type graph struct {
	ids   []string
	index map[string]int // node id -> index into Spec.Nodes (first occurrence)
	succ  [][]int
}

func buildGraph(s *Spec) *graph {
	g := &graph{index: map[string]int{}, ids: make([]string, len(s.Nodes)), succ: make([][]int, len(s.Nodes))}
	for i, n := range s.Nodes {
		g.ids[i] = n.NodeID
		if _, dup := g.index[n.NodeID]; !dup && n.NodeID != "" {
			g.index[n.NodeID] = i
		}
	}
	for i, n := range s.Nodes {
		if g.index[n.NodeID] != i {
			continue
		}
		add := func(to string) {
			if j, ok := g.index[to]; ok && !slices.Contains(g.succ[i], j) {
				g.succ[i] = append(g.succ[i], j)
			}
		}
		add(n.Next)
		for _, t := range n.Transitions {
			add(t.To)
		}
	}
	return g
}

// checkGraph reports nodes unreachable from the entry node and cycles from which no end node
// can be reached.
func (c *checker) checkGraph() {
	s := c.s
	if len(s.Nodes) == 0 || s.Nodes[0].NodeID == "" {
		return
	}
	g := buildGraph(s)
	reach := make([]bool, len(s.Nodes))
	queue := []int{0}
	reach[0] = true
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range g.succ[i] {
			if !reach[j] {
				reach[j] = true
				queue = append(queue, j)
			}
		}
	}
	for i, n := range s.Nodes {
		if !reach[i] && n.NodeID != "" && g.index[n.NodeID] == i {
			c.errorf(at("nodes", i)+".nodeId", "no next or transition leads here",
				"node %q is unreachable from the entry node %q", n.NodeID, s.Nodes[0].NodeID)
		}
	}

	// Which nodes can reach an end node? Walk the edges backwards from every end node.
	pred := make([][]int, len(s.Nodes))
	var ends []int
	for i, ss := range g.succ {
		for _, j := range ss {
			pred[j] = append(pred[j], i)
		}
		if s.Nodes[i].Kind == KindEnd && g.index[s.Nodes[i].NodeID] == i {
			ends = append(ends, i)
		}
	}
	if len(ends) == 0 {
		if !c.bad("nodes") {
			c.errorf("nodes", "add a node with kind: end", "the exam has no end node")
		}
		return
	}
	canEnd := make([]bool, len(s.Nodes))
	queue = append(queue[:0], ends...)
	for _, e := range ends {
		canEnd[e] = true
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range pred[i] {
			if !canEnd[j] {
				canEnd[j] = true
				queue = append(queue, j)
			}
		}
	}
	trapped := func(i int) bool { return reach[i] && !canEnd[i] }
	for _, scc := range g.sccs() {
		if !trapped(scc[0]) {
			continue
		}
		first := scc[0]
		for _, i := range scc {
			first = min(first, i)
		}
		cyc := g.cycleFrom(first, scc)
		if cyc == nil {
			continue // a lone node without a self-loop: not a cycle (a missing next is reported elsewhere)
		}
		path := make([]string, len(cyc))
		for k, i := range cyc {
			path[k] = g.ids[i]
		}
		c.errorf(at("nodes", first)+".nodeId", "give one of these nodes a next or transition that leads to an end node",
			"cycle %s never reaches an end node", strings.Join(path, " → "))
	}
}

// sccs returns the strongly connected components (Tarjan), iteratively to survive large exams.
func (g *graph) sccs() [][]int {
	n := len(g.succ)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	type frame struct{ v, edge int }
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.edge < len(g.succ[f.v]) {
				w := g.succ[f.v][f.edge]
				f.edge++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				var comp []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				out = append(out, comp)
			}
		}
	}
	return out
}

// cycleFrom returns a shortest cycle start → … → start inside the component, or nil.
func (g *graph) cycleFrom(start int, comp []int) []int {
	in := map[int]bool{}
	for _, i := range comp {
		in[i] = true
	}
	prev := map[int]int{}
	queue := []int{start}
	visited := map[int]bool{}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.succ[v] {
			if !in[w] {
				continue
			}
			if w == start {
				path := []int{start}
				for x := v; x != start; x = prev[x] {
					path = append(path, x)
				}
				// path is start, v, …, reversed; put it in walking order and close the loop.
				for a, b := 1, len(path)-1; a < b; a, b = a+1, b-1 {
					path[a], path[b] = path[b], path[a]
				}
				return append(path, start)
			}
			if !visited[w] {
				visited[w] = true
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return nil
}

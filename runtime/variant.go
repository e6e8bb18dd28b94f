package runtime

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/examtui/examtui/spec"
)

// VariantCounter draws a balanced variant across a cohort: the variant this exam has used
// least at this node in the session store, ties broken by the request's seed (LeastUsed), and
// records the draw before it returns, so that no two concurrent draws read the same counts.
// The sessions store implements it for both of its engines.
type VariantCounter interface {
	DrawVariant(ctx context.Context, req VariantRequest) (string, error)
}

// VariantRequest is one balanced draw: the node of an exam, its variants in spec order, the
// session drawing and the seed that breaks ties.
type VariantRequest struct {
	ExamID    string
	NodeID    string
	SessionID string
	Variants  []string
	Seed      uint64
}

// drawTimeout bounds a balanced draw: a store that does not answer in time leaves the draw to
// the seed (DrawSeeded) rather than holding the exam at a node's door.
const drawTimeout = 2 * time.Second

// WithVariantCounter makes balanced draws balanced across the store's sessions (without it, a
// balanced node draws from the seed alone and says so: DrawSeeded).
func WithVariantCounter(vc VariantCounter) Option {
	return func(o *options) error {
		if vc == nil {
			return fmt.Errorf("%w: nil variant counter", ErrInvalidOption)
		}
		o.variants = vc
		return nil
	}
}

// WithVariantPins names the variant of each listed node, whatever its draw (a candidate
// script's variants:, for tests). NewController refuses a node or variant the exam lacks.
func WithVariantPins(pins map[string]string) Option {
	return func(o *options) error {
		o.pins = make(map[string]string, len(pins))
		for k, v := range pins {
			o.pins[k] = v
		}
		return nil
	}
}

// WithDrawSeed sets the seed random draws and balanced ties use (default: a hash of the
// session id, so the session id alone, recorded in every event, reproduces every draw).
func WithDrawSeed(seed uint64) Option {
	return func(o *options) error {
		o.seed, o.seedSet = seed, true
		return nil
	}
}

// checkPins refuses pins that name a node or a variant the exam does not have.
func checkPins(exam *spec.Exam, pins map[string]string) error {
	for nodeID, v := range pins {
		n := exam.Node(nodeID)
		if n == nil {
			return fmt.Errorf("%w: variant pin for unknown node %q", ErrInvalidOption, nodeID)
		}
		if _, ok := n.WithVariant(v); !ok || v == "" {
			return fmt.Errorf("%w: node %q has no variant %q (%s)", ErrInvalidOption, nodeID, v, spec.Hint(v, "variants", n.VariantIDs()))
		}
	}
	return nil
}

// seedFor is the default seed: the session id's hash.
func seedFor(sessionID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(sessionID))
	return h.Sum64()
}

// pick is the seeded choice among n for the visit-th entry of a node: the same seed, node and
// visit give the same index, so a replayed run draws what the recorded one drew.
func pick(seed uint64, nodeID string, visit, n int) int {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatUint(seed, 10) + "\x00" + nodeID + "\x00" + strconv.Itoa(visit)))
	return int(h.Sum64() % uint64(n))
}

// LeastUsed is the one balanced rule: of variants (in spec order), those with the fewest draws
// in counts, and among those the one the seed picks. Both store engines call it.
func LeastUsed(counts map[string]int, variants []string, seed uint64) string {
	if len(variants) == 0 {
		return ""
	}
	least := -1
	var tied []string
	for _, v := range variants {
		switch n := counts[v]; {
		case least < 0 || n < least:
			least, tied = n, []string{v}
		case n == least:
			tied = append(tied, v)
		}
	}
	return tied[pick(seed, "", 0, len(tied))]
}

// drawVariant picks the variant of node for this entry, and says how. A node without variants
// has none (""). Caller holds mu.
func (c *Controller) drawVariant(node *spec.CompiledNode) (string, VariantDraw) {
	ids := node.VariantIDs()
	if len(ids) == 0 {
		return "", DrawUnknown
	}
	if v, ok := c.pins[node.NodeID]; ok {
		if _, found := node.WithVariant(v); found {
			return v, DrawPinned
		}
	}
	visit := 0
	for _, id := range c.visited {
		if id == node.NodeID {
			visit++
		}
	}
	seeded := ids[pick(c.seed, node.NodeID, visit, len(ids))]
	switch node.Controller.Draw {
	case spec.DrawFixed:
		return node.FixedVariant(), DrawFixed
	case spec.DrawBalanced:
		if c.variants == nil {
			return seeded, DrawSeeded
		}
		ctx, cancel := context.WithTimeout(context.Background(), drawTimeout)
		defer cancel()
		v, err := c.variants.DrawVariant(ctx, VariantRequest{ExamID: c.exam.ID, NodeID: node.NodeID, SessionID: c.sessionID,
			Variants: ids, Seed: c.seed ^ uint64(visit)})
		if _, ok := node.WithVariant(v); err != nil || !ok {
			c.log.Warn("balanced draw failed: drawing from the seed", "node", node.NodeID, "variant", v, "err", err)
			return seeded, DrawSeeded
		}
		return v, DrawBalanced
	}
	return seeded, DrawRandom
}

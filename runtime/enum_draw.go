package runtime

// VariantDraw says how the variant of a node was picked (node_entered.variantDraw).
type VariantDraw string

// Variant draws.
const (
	DrawUnknown  VariantDraw = ""
	DrawRandom   VariantDraw = "random"   // from the session's seed
	DrawBalanced VariantDraw = "balanced" // the exam's least-used variant in the session store
	DrawFixed    VariantDraw = "fixed"    // the node's fixedVariant, or its first
	DrawPinned   VariantDraw = "pinned"   // named by the run (a candidate script's variants:)
	// DrawSeeded is a balanced draw made from the seed alone: no store counts draws (a run
	// without a session store), or the store could not be asked in time.
	DrawSeeded VariantDraw = "seeded"
)

// VariantDraws lists every variant draw.
var VariantDraws = []VariantDraw{DrawRandom, DrawBalanced, DrawFixed, DrawPinned, DrawSeeded}

func (d VariantDraw) String() string { return string(d) }

// Valid reports whether d is a known variant draw.
func (d VariantDraw) Valid() bool { return isKnown(d, VariantDraws) }

// ParseVariantDraw parses "random", "balanced", "fixed", "pinned" or "seeded".
func ParseVariantDraw(s string) (VariantDraw, error) {
	return parseEnum("variant draw", s, VariantDraws)
}

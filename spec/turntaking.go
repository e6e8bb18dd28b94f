package spec

// ResolvedTurnTaking is policies.turnTaking with defaults applied, in seconds.
type ResolvedTurnTaking struct {
	SureDelay     float64 `json:"sureDelay"`
	CompleteDelay float64 `json:"completeDelay"`
	MinDelay      float64 `json:"minDelay"`
	MaxDelay      float64 `json:"maxDelay"`
}

// Turn-taking defaults (seconds) and bounds.
const (
	DefaultSureDelay     = 0.15
	DefaultCompleteDelay = 0.25
	DefaultMinDelay      = 0.5
	DefaultMaxDelay      = 3.0
	minTurnDelay         = 0.02 // one audio frame
	maxTurnDelay         = 10.0
)

// resolveTurnTaking applies the defaults; nil when the spec leaves turn taking alone, so the
// compiled form of existing specs does not change.
func resolveTurnTaking(t *TurnTaking) *ResolvedTurnTaking {
	if t == nil {
		return nil
	}
	r := &ResolvedTurnTaking{CompleteDelay: DefaultCompleteDelay, MinDelay: DefaultMinDelay, MaxDelay: DefaultMaxDelay}
	for _, f := range []struct {
		dst *float64
		v   *float64
	}{{&r.CompleteDelay, t.CompleteDelay}, {&r.MinDelay, t.MinDelay}, {&r.MaxDelay, t.MaxDelay}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	// The sure wait is never longer than the complete one: a spec that only shortens
	// completeDelay shortens both.
	r.SureDelay = min(DefaultSureDelay, r.CompleteDelay)
	if t.SureDelay != nil {
		r.SureDelay = *t.SureDelay
	}
	return r
}

// validateTurnTaking checks the delays: each within bounds, sure ≤ complete ≤ min ≤ max.
func (c *checker) validateTurnTaking(t *TurnTaking) {
	if t == nil {
		return
	}
	r := resolveTurnTaking(t)
	for _, f := range []struct {
		name string
		v    *float64
	}{{"sureDelay", t.SureDelay}, {"completeDelay", t.CompleteDelay}, {"minDelay", t.MinDelay}, {"maxDelay", t.MaxDelay}} {
		if f.v != nil && (*f.v < minTurnDelay || *f.v > maxTurnDelay) {
			c.errorf("policies.turnTaking."+f.name, "allowed: 0.02 to 10 seconds", "%s %g is out of range", f.name, *f.v)
			return
		}
	}
	if r.SureDelay > r.CompleteDelay || r.CompleteDelay > r.MinDelay || r.MinDelay > r.MaxDelay {
		c.errorf("policies.turnTaking", "want sureDelay ≤ completeDelay ≤ minDelay ≤ maxDelay",
			"turn-taking delays sure %g, complete %g, min %g, max %g are out of order", r.SureDelay, r.CompleteDelay, r.MinDelay, r.MaxDelay)
	}
}

package runtime

import (
	"slices"
)

// LedgerEntry is one accepted evidence signal.
type LedgerEntry struct {
	NodeID        string     `json:"nodeId"`
	Turn          int        `json:"turn"`
	SignalType    string     `json:"signalType"`
	RubricLevel   string     `json:"rubricLevel,omitempty"`
	Excerpt       string     `json:"excerpt"`
	Confidence    float64    `json:"confidence"`
	STTConfidence STTSummary `json:"sttConfidenceSummary"`
	Transversal   bool       `json:"transversal,omitempty"`
	// OtherNode marks a signal the node it was heard in (NodeID) does not listen for: another
	// node's, given early or late. It counts for marking, not for the node's coverage.
	OtherNode bool `json:"otherNode,omitempty"`
	// ScaffoldingIntensity (0–3) and ScaffoldingEffective are how much help preceded the signal
	// and whether the candidate improved after it, as the examiner reported them.
	ScaffoldingIntensity *int  `json:"scaffoldingIntensity,omitempty"`
	ScaffoldingEffective *bool `json:"scaffoldingEffective,omitempty"`
}

// MisconceptionEntry is a recorded misconception.
type MisconceptionEntry struct {
	NodeID string `json:"nodeId"`
	Turn   int    `json:"turn"`
	Misconception
}

// Target reports whether the entry covers one of its node's evidence targets (not a
// transversal skill, not another node's signal).
func (e *LedgerEntry) Target() bool { return !e.Transversal && !e.OtherNode }

// Ledger is the evidence ledger: accepted signals, deduplicated per node (the node each was
// heard in) and signal type.
type Ledger struct {
	entries        []LedgerEntry
	misconceptions []MisconceptionEntry
}

// Has reports whether the ledger holds signalType for nodeID.
func (l *Ledger) Has(nodeID, signalType string) bool {
	for i := range l.entries {
		if l.entries[i].NodeID == nodeID && l.entries[i].SignalType == signalType {
			return true
		}
	}
	return false
}

// add appends an entry unless it duplicates one already held; it reports whether it was added.
func (l *Ledger) add(e LedgerEntry) bool {
	if l.Has(e.NodeID, e.SignalType) {
		return false
	}
	l.entries = append(l.entries, e)
	return true
}

// Covered returns the node's targets that have accepted evidence, in target order.
func (l *Ledger) Covered(nodeID string, targets []string) []string {
	var out []string
	for _, t := range targets {
		if l.Has(nodeID, t) {
			out = append(out, t)
		}
	}
	return out
}

// Coverage is the fraction of the node's targets with accepted evidence (1 when it has none).
func (l *Ledger) Coverage(nodeID string, targets []string) float64 {
	if len(targets) == 0 {
		return 1
	}
	return float64(len(l.Covered(nodeID, targets))) / float64(len(targets))
}

// Entries returns a copy of the accepted signals.
func (l *Ledger) Entries() []LedgerEntry { return slices.Clone(l.entries) }

// Misconceptions returns a copy of the recorded misconceptions.
func (l *Ledger) Misconceptions() []MisconceptionEntry { return slices.Clone(l.misconceptions) }

// CountByType returns accepted signals by type.
func (l *Ledger) CountByType() map[string]int {
	out := map[string]int{}
	for _, e := range l.entries {
		out[e.SignalType]++
	}
	return out
}

// Package panel is the model panel of marking: k independent markers, each an OpenAI-compatible
// chat model, mark one session's transcript against a scheme's criteria; each must cite the
// transcript segments its rationale rests on (a mark that cites none, or cites a segment the
// transcript does not have, is rejected and reported); then one revision round, in which each
// member sees the others' levels and rationales and may change its own. The panel's figures per
// criterion (agreement, spread) flag the dispersed criteria for a human. A member that fails
// (an error, a timeout, a reply that is not a report_marks call) is reported and the panel goes
// on with the others: the panel fails only when no member returns a mark.
//
// The panel proposes; it never sets a mark. Marks are set by a human marker (examtui mark,
// examtui marks set).
package panel

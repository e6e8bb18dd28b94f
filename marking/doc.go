// Package marking turns a finished exam's evidence into a moderated, locked mark
// (docs/marking.md): the rule's proposals per criterion of the exam's marking scheme
// (Propose), markers' levels, blind second marking and adjudication, agreement between
// markers (exact agreement, Cohen's κ, Krippendorff's α), the lock digest over a session's
// events and marks and its verification, and the gradebook export.
//
// It sits above runtime (events), spec (the scheme) and sessions (the store); runtime never
// imports it.
package marking

// Package markconsole is examtui mark's console: one session's marking sheet (per criterion the
// rule's proposal and the evidence it rests on, the model panel's levels, the marker's own level
// and justification), the transcript to jump into at each piece of evidence, and the candidate's
// recording played from that moment where the session has one. The marker works blind: the
// sheet carries only this marker's marks, never another's.
//
// Layout follows the exam console: one root model owns layout, focus and keys; the panes
// (criteria, detail, transcript) are small types with SetSize and View; the styles are tui's;
// every read and write of the store happens in a tea.Cmd through the Backend, never in Update.
package markconsole

// Package monitor is the control room's model: a board of every live exam on a session store,
// built from the stores' aggregates and the event stream, and the alerts that say which exam
// needs a human now. It is pure (no terminal, no I/O besides Follow, which reads a Source);
// the tui/controlroom package draws it and examtui monitor wires it.
package monitor

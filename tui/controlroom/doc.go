// Package controlroom is examtui monitor's console: one root model that lists every live exam
// on a session store (the monitor package's board), explains the selected exam's alerts, and
// opens an exam's supervise console (the tui package's console, embedded) on enter.
package controlroom

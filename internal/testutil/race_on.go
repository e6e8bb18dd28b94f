//go:build race

package testutil

// Race reports whether the race detector is on (it slows code down several times over).
const Race = true

package pgtest

import "testing"

// EachEngine runs f once per store engine, as a subtest named for it ("sqlite", "postgres"),
// with a fresh, empty store target: a temporary data directory, or a new database on the test
// binary's PostgreSQL server. Tests outside package sessions that must hold on both engines use
// it rather than a table of their own.
func EachEngine(t *testing.T, f func(t *testing.T, target string)) {
	t.Helper()
	for _, eng := range []struct {
		name   string
		target func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return t.TempDir() }},
		{"postgres", func(t *testing.T) string { return NewDB(t) }},
	} {
		t.Run(eng.name, func(t *testing.T) { f(t, eng.target(t)) })
	}
}

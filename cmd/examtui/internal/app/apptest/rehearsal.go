package apptest

import (
	"testing"

	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// Rehearsal is the example candidate script (examples/hotel-rehearsal.yaml) that the end-to-end
// tests answer the demo exam with, loaded by runtimetest.Rehearsal; Rehearsal(t).Said() is what
// its candidate says.
func Rehearsal(t testing.TB) *headless.Script {
	t.Helper()
	script, _ := runtimetest.Rehearsal(t)
	return script
}

package apptest

import (
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime/headless"
)

// Rehearsal is the example candidate script (examples/hotel-rehearsal.yaml) that the end-to-end
// tests answer the demo exam with; Rehearsal(t).Said() is what its candidate says.
func Rehearsal(t testing.TB) *headless.Script {
	t.Helper()
	script, err := headless.LoadScriptFS(examples.FS, "hotel-rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return script
}

package sessions

import (
	"os"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

func TestMain(m *testing.M) {
	// The crash test re-executes this binary as the process it kills.
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(runCrashChild(dir, os.Getenv(crashChildIDEnv)))
	}
	os.Exit(pgtest.Main(m))
}

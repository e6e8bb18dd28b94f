package candidate

import (
	"os"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

// TestMain stops the PostgreSQL server the engine tests start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

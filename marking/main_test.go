package marking

import (
	"os"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

package main

import (
	"os"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests may have started (pgtest.Shared).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

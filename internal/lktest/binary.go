package lktest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvServer names the livekit-server binary; the Makefile sets it for `make test`.
const EnvServer = "EXAMTUI_LIVEKIT_SERVER"

// ErrNoServer means no livekit-server binary was found.
var ErrNoServer = errors.New("livekit-server binary not found (run `make livekit-server` or set " + EnvServer + ")")

// findBinary returns $EXAMTUI_LIVEKIT_SERVER, or <module root>/bin/livekit-server found by
// walking up from the working directory (go test runs in the package's directory).
func findBinary() (string, error) {
	if p := os.Getenv(EnvServer); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvServer, p, err)
		}
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", "livekit-server")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%w: %s: %w", ErrNoServer, p, err)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoServer
		}
		dir = parent
	}
}

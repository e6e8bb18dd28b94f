package sessions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvDataDir overrides the data directory when no flag is given.
const EnvDataDir = "EXAMTUI_DATA_DIR"

// DataDir resolves the data directory: flagValue (--data-dir) > $EXAMTUI_DATA_DIR >
// $XDG_DATA_HOME/examtui > ~/.local/share/examtui. It does not create the directory.
func DataDir(flagValue string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	if v := os.Getenv(EnvDataDir); v != "" {
		return filepath.Abs(v)
	}
	if v := os.Getenv("XDG_DATA_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "examtui"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("resolve data directory: %w", err)
	}
	if home == "" {
		return "", errors.New("resolve data directory: no home directory")
	}
	return filepath.Join(home, ".local", "share", "examtui"), nil
}

// ensureDir creates dir with owner-only permissions. An existing directory keeps its mode
// unless it is readable by others, which a store holding exam records must not be.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return restrict(dir, 0o700)
}

// ensureFile creates path (empty) with mode 0600 if it does not exist, so SQLite, which
// copies the database file's mode to its -wal and -shm files, never widens access.
func ensureFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return restrict(path, 0o600)
}

// restrict sets path's mode to mode (owner-only) when group or others may access it; an
// owner-only mode is left as the owner set it.
func restrict(path string, mode os.FileMode) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("restrict %s: %w", path, err)
		}
	}
	return nil
}

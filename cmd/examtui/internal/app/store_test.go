package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/sessions"
)

// TestStoreTarget: --store wins over $EXAMTUI_STORE, which wins over store: in the config file,
// which wins over the data directory.
func TestStoreTarget(t *testing.T) {
	const (
		flagURL = "postgres://exam@flag/exams"
		envURL  = "postgres://exam@env/exams"
		fileURL = "postgres://exam@file/exams"
		dataDir = "/srv/examtui"
	)
	tests := []struct {
		name, flag, env, file, want string
	}{
		{"flag", flagURL, envURL, fileURL, flagURL},
		{"environment", "", envURL, fileURL, envURL},
		{"config file", "", "", fileURL, fileURL},
		{"data directory", "", "", "", dataDir},
		{"flag names a directory", "/tmp/other", envURL, "", "/tmp/other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			body := ""
			if tt.file != "" {
				body = "store: " + tt.file + "\n"
			}
			if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv(config.EnvConfigFile, cfg)
			t.Setenv(sessions.EnvStore, tt.env)
			if tt.env == "" {
				os.Unsetenv(sessions.EnvStore) // unset, so the config file may fill it
			}
			f, err := config.Load()
			if err != nil {
				t.Fatal(err)
			}
			f.Env()
			if got := StoreTarget(tt.flag, dataDir); got != tt.want {
				t.Errorf("StoreTarget = %q, want %q", got, tt.want)
			}
		})
	}
}

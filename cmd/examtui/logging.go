package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/internal/logredact"
	"github.com/examtui/examtui/sessions"
)

// setup loads the config file into the environment (the environment wins), resolves the data
// directory and opens the log file. The TUI owns the terminal, so logs never go to stdout.
func setup() (dataDir string, log *slog.Logger, closeLog func(), err error) {
	if dataDir, err = resolveDataDir(); err != nil {
		return "", nil, nil, err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToLower(globals.logLevel))); err != nil {
		return "", nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	path := globals.logFile
	if path == "" {
		path = filepath.Join(dataDir, "examtui.log")
	}
	var w io.Writer = io.Discard
	closeLog = func() {}
	if path != "-" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", nil, nil, err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return "", nil, nil, fmt.Errorf("log file: %w", err)
		}
		w, closeLog = f, func() { _ = f.Close() }
	}
	// Every handler we install masks tokens and keys (the LiveKit SDK logs join details at debug).
	return dataDir, slog.New(logredact.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))), closeLog, nil
}

// resolveDataDir loads the config file into the environment (so its dataDir and keys apply)
// and resolves the data directory: --data-dir, $EXAMTUI_DATA_DIR, the config file, XDG.
func resolveDataDir() (string, error) {
	cfg, err := config.Load()
	if err != nil {
		return "", err
	}
	cfg.Env()
	globals.config = cfg
	return sessions.DataDir(globals.dataDir)
}

package main

import (
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/config"
)

// globalOptions are flags every subcommand shares.
type globalOptions struct {
	dataDir  string
	store    string
	logFile  string
	logLevel string
	// config is the config file as loaded by setup (zero before setup runs).
	config config.File
}

var globals globalOptions

func addGlobalFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&globals.dataDir, "data-dir", "", "data directory (default $EXAMTUI_DATA_DIR or $XDG_DATA_HOME/examtui)")
	f.StringVar(&globals.store, "store", "", "session store: a data directory or a postgres:// URL (default $EXAMTUI_STORE, store: in the config file, else the data directory)")
	f.StringVar(&globals.logFile, "log-file", "", "log file (default <data-dir>/examtui.log)")
	f.StringVar(&globals.logLevel, "log-level", "info", "log level: debug, info, warn, error")
}

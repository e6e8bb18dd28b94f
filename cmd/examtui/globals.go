package main

import (
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/spec/lang"
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

// languagePacks are the language packs exams look their language up in: the shipped ones with
// the config file's added. A command that has not loaded the config file (check) loads it
// here; a config file that does not load leaves the shipped packs (doctor and the commands
// that need the file report it).
func languagePacks() *lang.Registry {
	if globals.config.Languages == nil {
		if cfg, err := config.Load(); err == nil {
			return cfg.LanguagePacks()
		}
	}
	return globals.config.LanguagePacks()
}

package config

// Panel configures the model panel of marks propose --panel (panel: in the config file).
// Members are independent markers; each may name its own server, else it uses the mark
// stage's endpoint (EXAMTUI_MARK_*, falling back to OPENAI_*).
type Panel struct {
	Members []PanelMember `yaml:"members"`
	// Timeout bounds one member's call (a Go duration; empty: the mark stage's timeout, else 60s).
	Timeout string `yaml:"timeout"`
	// FlagSpread is how many levels apart the members' final levels may be before a criterion is
	// sent to a human (default 1: any disagreement left after the revision round).
	FlagSpread int `yaml:"flagSpread"`
}

// PanelMember is one marker of the panel. A member with its own baseURL uses only its own
// apiKey, as a stage does, so a hosted provider's key never reaches another server.
type PanelMember struct {
	Name    string `yaml:"name"` // shown in reports; empty: the model's name
	Model   string `yaml:"model"`
	BaseURL string `yaml:"baseURL"`
	APIKey  string `yaml:"apiKey"`
}

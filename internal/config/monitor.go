package config

// Monitor tunes examtui monitor's alerts. Durations are Go durations ("90s", "5m"); an empty
// or zero field takes the default.
type Monitor struct {
	SilentAfter     string `yaml:"silentAfter"`     // no candidate answer for this long (default 2m)
	StalledAfter    string `yaml:"stalledAfter"`    // no event at all for this long (default 5m)
	LowConfidence   int    `yaml:"lowConfidence"`   // low-confidence rejections in a node (default 3)
	ExaminerErrors  int    `yaml:"examinerErrors"`  // examiner failures (default 1)
	OverBudgetGrace string `yaml:"overBudgetGrace"` // past the node's deadline (default 15s)
	NotStartedAfter string `yaml:"notStartedAfter"` // a room's dispatch with no exam bot (default 30s)
}

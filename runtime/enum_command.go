package runtime

// CommandSource says who saw a candidate command (command_acknowledged's source).
type CommandSource string

// Command sources.
const (
	CommandSourceUnknown CommandSource = ""
	// CommandByExaminer: the examiner's observation reported the command.
	CommandByExaminer CommandSource = "examiner"
	// CommandBySafetyNet: the rule-based classifier on the transcript caught it.
	CommandBySafetyNet CommandSource = "safety_net"
	// CommandByConfirmation: the candidate's answer to "are you sure?" after a finish.
	CommandByConfirmation CommandSource = "confirmation"
)

// CommandSources lists every command source.
var CommandSources = []CommandSource{CommandByExaminer, CommandBySafetyNet, CommandByConfirmation}

func (s CommandSource) String() string { return string(s) }

// Valid reports whether s is a known command source.
func (s CommandSource) Valid() bool { return isKnown(s, CommandSources) }

// ParseCommandSource parses "examiner", "safety_net" or "confirmation".
func ParseCommandSource(s string) (CommandSource, error) {
	return parseEnum("command source", s, CommandSources)
}

package runtime

// WarningScope says which budget a time_warning is about (time_warning.scope).
type WarningScope string

// Warning scopes.
const (
	WarningUnknown WarningScope = ""
	WarningNode    WarningScope = "node" // the current node's time budget
	WarningExam    WarningScope = "exam" // the whole exam's time budget
)

// WarningScopes lists every warning scope.
var WarningScopes = []WarningScope{WarningNode, WarningExam}

func (s WarningScope) String() string { return string(s) }

// Valid reports whether s is a known warning scope.
func (s WarningScope) Valid() bool { return isKnown(s, WarningScopes) }

// ParseWarningScope parses "node" or "exam".
func ParseWarningScope(s string) (WarningScope, error) {
	return parseEnum("warning scope", s, WarningScopes)
}

// Package operator is the one grammar of the commands an operator types: on the stdin of
// `examtui run --headless` and of `examtui watch --plain|--json --commands`
// (docs/console.md, "Operator commands"). One table defines the commands, their aliases and
// the help text, so the parser and the help cannot disagree.
package operator

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/examtui/examtui/runtime"
)

// Kind says what a typed line asks for.
type Kind int

// Kinds of line.
const (
	KindNone    Kind = iota // a blank line: nothing to do
	KindAnswer              // the candidate's answer (headless stdin only)
	KindControl             // pause, resume, skip, advance, end, promote
	KindAdmin               // an examiner instruction (immediate or queued) or a line to say
)

func (k Kind) String() string {
	switch k {
	case KindNone:
		return "none"
	case KindAnswer:
		return "answer"
	case KindControl:
		return "control"
	case KindAdmin:
		return "admin"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Input says where lines are typed, which decides what a line without a leading "/" is.
type Input int

// Inputs.
const (
	// Answers: headless stdin. A bare line is the candidate's answer; commands start with "/";
	// "//TEXT" is an answer that starts with "/".
	Answers Input = iota + 1
	// Commands: an examiner's stdin (watch). Every line is a command; the "/" is optional.
	Commands
)

// MaxTextRunes bounds an instruction's text: what the room's wire accepts.
const MaxTextRunes = 2000

// Named errors; every parse error wraps ErrCommand.
var (
	ErrCommand  = errors.New("operator command")
	ErrUnknown  = fmt.Errorf("unknown %w", ErrCommand)
	ErrArgument = fmt.Errorf("bad %w", ErrCommand)
)

// Command is one parsed line.
type Command struct {
	Kind   Kind
	Action runtime.ControlAction // KindControl
	Mode   runtime.AdminMode     // KindAdmin
	Text   string                // KindAnswer: the answer; KindAdmin: the instruction
}

// command is one row of the grammar: its name, its aliases (older spellings kept working)
// and what it does.
type command struct {
	name    string
	aliases []string
	arg     string // "TEXT" when the command takes the rest of the line, else ""
	kind    Kind
	action  runtime.ControlAction
	mode    runtime.AdminMode
	help    string
}

// grammar is the table the parser and the help text are made from.
var grammar = []command{
	{name: "pause", kind: KindControl, action: runtime.ControlPause, help: "pause the exam; its clocks stop"},
	{name: "resume", kind: KindControl, action: runtime.ControlResume, help: "resume a paused exam"},
	{name: "skip", kind: KindControl, action: runtime.ControlSkip, help: "leave the node (skipped)"},
	{name: "advance", kind: KindControl, action: runtime.ControlAdvance, help: "move on to the next node"},
	{name: "end", kind: KindControl, action: runtime.ControlEnd, help: "end the exam (aborted)"},
	{name: "now", aliases: []string{"admin", "immediate"}, arg: "TEXT", kind: KindAdmin, mode: runtime.AdminImmediate,
		help: "immediate instruction: the examiner acts on it at once"},
	{name: "queue", aliases: []string{"queued"}, arg: "TEXT", kind: KindAdmin, mode: runtime.AdminQueued,
		help: "queued instruction, used at the next turn"},
	{name: "say", arg: "TEXT", kind: KindAdmin, mode: runtime.AdminSay,
		help: "say TEXT to the candidate word for word (instructions are never read out)"},
	{name: "promote", kind: KindControl, action: runtime.ControlPromote, help: "run the oldest queued instruction now, as an immediate one"},
}

// lookup finds a command by name or alias, ignoring case.
func lookup(word string) (command, bool) {
	for _, c := range grammar {
		if strings.EqualFold(word, c.name) {
			return c, true
		}
		for _, a := range c.aliases {
			if strings.EqualFold(word, a) {
				return c, true
			}
		}
	}
	return command{}, false
}

// Parse reads one typed line. Surrounding space is ignored and so is the case of a command's
// name. Errors wrap ErrUnknown or ErrArgument and name the line's command.
func Parse(line string, in Input) (Command, error) {
	s := strings.TrimSpace(line)
	switch {
	case s == "":
		return Command{Kind: KindNone}, nil
	case in == Answers && strings.HasPrefix(s, "//"):
		return Command{Kind: KindAnswer, Text: s[1:]}, nil
	case in == Answers && !strings.HasPrefix(s, "/"):
		return Command{Kind: KindAnswer, Text: s}, nil
	}
	slash := "" // how commands are written back in errors: as the operator types them
	if in == Answers {
		slash = "/"
	}
	word, arg, _ := strings.Cut(strings.TrimPrefix(s, "/"), " ")
	arg = strings.TrimSpace(arg)
	c, ok := lookup(word)
	if !ok {
		return Command{}, fmt.Errorf("%w: %q", ErrUnknown, slash+word)
	}
	name := slash + strings.ToLower(word)
	switch n := utf8.RuneCountInString(arg); {
	case c.arg == "" && arg != "":
		return Command{}, fmt.Errorf("%w: %s takes no argument", ErrArgument, name)
	case c.arg != "" && !runtime.Printable(arg):
		// Nothing readable (controls, bidi marks alone) is no text: the room refuses it too.
		return Command{}, fmt.Errorf("%w: %s needs the instruction's text", ErrArgument, name)
	case !utf8.ValidString(arg):
		return Command{}, fmt.Errorf("%w: %s: the text is not UTF-8", ErrArgument, name)
	case n > MaxTextRunes:
		return Command{}, fmt.Errorf("%w: %s: the text has %d characters (limit %d)", ErrArgument, name, n, MaxTextRunes)
	}
	return Command{Kind: c.kind, Action: c.action, Mode: c.mode, Text: arg}, nil
}

// Help describes the grammar for in, one command a line, made from the same table as Parse.
func Help(in Input) string {
	var b strings.Builder
	slash := "/"
	if in == Answers {
		b.WriteString("stdin: one candidate answer per line; lines starting with \"/\" are operator commands:\n")
	} else {
		b.WriteString("one command per line (the leading \"/\" is optional):\n")
	}
	for _, c := range grammar {
		usage := slash + c.name
		if c.arg != "" {
			usage += " " + c.arg
		}
		line := fmt.Sprintf("  %-14s %s", usage, c.help)
		if len(c.aliases) > 0 {
			line += " (also " + slash + strings.Join(c.aliases, ", "+slash) + ")"
		}
		b.WriteString(line + "\n")
	}
	if in == Answers {
		fmt.Fprintf(&b, "  %-14s %s\n", "//TEXT", `an answer that starts with "/"`)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

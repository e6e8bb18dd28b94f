// Package cliguide makes the command line's mistakes say what to do: an unknown command or
// flag names the closest one (spec.Suggest, the one "did you mean" of examtui) and the --help
// to read; any other flag error points at that --help too.
package cliguide

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/examtui/examtui/spec"
)

// ErrUnknownCommand is a command line naming a command that does not exist.
var ErrUnknownCommand = errors.New("unknown command")

// FlagError is pflag's error (Err) said with what to do about it.
type FlagError struct {
	Msg string
	Err error
}

func (e *FlagError) Error() string { return e.Msg }
func (e *FlagError) Unwrap() error { return e.Err }

// Install walks the command tree under root: every command with subcommands refuses an
// unknown one with the closest match (a command with no action of its own showed its help
// instead, and exited 0), and every flag error names the closest flag and the --help.
func Install(root *cobra.Command) {
	root.SetFlagErrorFunc(flagError)
	walk(root)
	guardHelp(root)
}

// guardHelp makes `help NAME…` refuse an unknown NAME the way the command line does (cobra's
// help command printed the root's help for any topic it could not find, and exited 0).
func guardHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, h := range root.Commands() {
		if h.Name() != "help" {
			continue
		}
		h.Run = nil
		h.RunE = func(cmd *cobra.Command, args []string) error {
			target := root
			for _, name := range args {
				next := subcommand(target, name)
				if next == nil {
					return UnknownCommand(target, name)
				}
				target = next
			}
			if target.Context() == nil {
				target.SetContext(cmd.Context())
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		}
	}
}

// subcommand is parent's subcommand called name (or aliased so), or nil.
func subcommand(parent *cobra.Command, name string) *cobra.Command {
	for _, sub := range parent.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

func walk(c *cobra.Command) {
	if c.HasSubCommands() {
		guardSubcommands(c)
	}
	for _, sub := range c.Commands() {
		walk(sub)
	}
}

// guardSubcommands makes an argument that is not a subcommand an error with a suggestion.
// A command that runs on its own with no arguments (the root opens the demo, `sessions`
// lists) keeps doing so; one with no action shows its help.
func guardSubcommands(c *cobra.Command) {
	args := c.Args
	c.Args = func(cmd *cobra.Command, a []string) error {
		if len(a) > 0 {
			return UnknownCommand(cmd, a[0])
		}
		if args != nil {
			return args(cmd, a)
		}
		return nil
	}
	if c.Run == nil && c.RunE == nil {
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// UnknownCommand is the error for name given to parent, which has no such subcommand.
func UnknownCommand(parent *cobra.Command, name string) error {
	var names []string
	for _, sub := range parent.Commands() {
		if sub.IsAvailableCommand() || sub.Name() == "help" {
			names = append(names, sub.Name())
			names = append(names, sub.Aliases...)
		}
	}
	hint := ""
	if m := spec.Suggest(name, names); m != "" {
		hint = fmt.Sprintf("did you mean %q? ", m)
	}
	return fmt.Errorf("%w %q for %q: %s'%s --help' lists the commands", ErrUnknownCommand, name, parent.CommandPath(), hint, parent.CommandPath())
}

var unknownFlag = regexp.MustCompile(`^unknown (?:shorthand )?flag: (?:'(.)' in (-\S+)|--?(\S+))`)

// flagError words pflag's error for cmd: an unknown flag with the closest one, any other
// with the --help that lists the flags.
func flagError(cmd *cobra.Command, err error) error {
	help := fmt.Sprintf("'%s --help' lists its flags", cmd.CommandPath())
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return &FlagError{Msg: err.Error() + "; " + help, Err: err}
	}
	name, dashes := m[3], "--"
	if m[1] != "" {
		name, dashes = m[1], "-"
	}
	if token := m[2]; len(token) > 2 && !strings.HasPrefix(token, "--") {
		// A run of letters after one dash is most likely an argument that begins with '-' (an
		// LTI key id is base64url: one in 64 does), not a cluster of flags.
		help = fmt.Sprintf("an argument that begins with '-' goes after '--' ('%s -- %s'); %s", cmd.CommandPath(), token, help)
	}
	var names []string
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if !seen[f.Name] && !f.Hidden {
			seen[f.Name] = true
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	hint := ""
	if s := spec.Suggest(name, names); s != "" && dashes == "--" {
		hint = fmt.Sprintf("did you mean --%s? ", s)
	}
	return &FlagError{Msg: fmt.Sprintf("unknown flag %s%s for %q: %s%s", dashes, name, cmd.CommandPath(), hint, help), Err: err}
}

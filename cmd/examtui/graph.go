package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/examgraph"
	"github.com/examtui/examtui/tui"
)

func newGraphCmd() *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "graph SPEC",
		Short: "Show an exam's nodes and transitions, with what fires each transition",
		Long: `graph compiles an exam specification and prints its nodes and the transitions between
them, each with the reasons that take it and what fires them: accepted evidence signals,
follow-up and off-topic counts, time budgets, the distress guardrail, candidate commands and
examiner controls. A reason the author named under transitions is marked [transitions]; the
others fall back to the node's next.

  text     a readable tree (the default)
  mermaid  a Mermaid flowchart, for Markdown docs and reviews
  dot      Graphviz DOT (render with: dot -Tsvg)

SPEC may be "-" for standard input or "demo" for the built-in example exam. An invalid spec
prints its diagnostics and exits 1.`,
		Example: `  examtui graph exam.yaml
  examtui graph demo --format mermaid
  examtui graph exam.yaml --format dot | dot -Tsvg -o exam.svg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := examgraph.ParseFormat(format)
			if err != nil {
				return err
			}
			name, src, err := readSpecArg(cmd, args[0])
			if err != nil {
				return err
			}
			exam, diags, _ := spec.Compile(name, src)
			if exam == nil {
				printDiagnostics(cmd.ErrOrStderr(), diags)
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s, no graph\n", name, plural(len(diags.Errors()), "error"))
				return &exitError{code: 1}
			}
			g, err := examgraph.New(exam)
			if err != nil {
				return err
			}
			b, err := g.Render(f)
			if err != nil {
				return err
			}
			return writeOutput(cmd, out, 0o644, writeBytes(b))
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: text, mermaid or dot")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "mermaid", "dot"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// graphOption gives a console the exam's graph (the ctrl+g overlay).
func graphOption(e *spec.Exam) []tui.Option {
	g, err := examgraph.New(e)
	if err != nil {
		return nil
	}
	return []tui.Option{tui.WithExamGraph(g)}
}

// replayGraphOption gives a replay console the graph of the exam the session started with
// (an applied spec_reload redraws it as the replay reaches it); none when it cannot be read.
func replayGraphOption(ctx context.Context, st *sessions.Store, id string) []tui.Option {
	sess, err := st.Get(ctx, id)
	if err != nil {
		return nil
	}
	exam, err := sess.Exam()
	if err != nil {
		return nil
	}
	return graphOption(exam)
}

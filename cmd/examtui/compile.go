package main

import (
	"fmt"
	"strings"

	"github.com/examtui/examtui/spec"
	"github.com/spf13/cobra"
)

func newCompileCmd() *cobra.Command {
	var target, out string
	cmd := &cobra.Command{
		Use:   "compile FILE",
		Short: "Compile an exam specification to the runtime IR or Pipecat Flows JSON",
		Long: `compile validates an exam specification and writes the compiled exam:

  ir             the compiled exam examtui runs (every default resolved, per-node LLM
                 messages and the report_observation tool, controller metadata)
  pipecat-flows  the exam as data for a Pipecat bot (format examtui-pipecat-flows,
                 formatVersion 1): per node role_message, task_messages, the
                 report_observation function, pre_actions, context_strategy and the
                 successor for every transition reason, plus controller metadata.
                 contrib/pipecat/examtui_flows.py turns it into pipecat-ai-flows 1.x
                 NodeConfigs with a report_observation handler (see docs/outputs.md)

Output is deterministic: the same file always compiles to the same bytes. Diagnostics go to
standard error as in "examtui check"; on any error nothing is written and the exit status is 1.
FILE may be "-" for standard input or "demo" for the built-in example exam.`,
		Example: `  examtui compile exam.yaml
  examtui compile exam.yaml --target pipecat-flows -o exam.flows.json
  examtui compile demo --target ir | jq '.nodes[].nodeId'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t := spec.Target(target)
			if !t.Valid() {
				return fmt.Errorf("unknown --target %q (known: %s)", target, targetNames())
			}
			name, src, err := readSpecArg(cmd, args[0])
			if err != nil {
				return err
			}
			exam, diags, _ := spec.Compile(name, src)
			printDiagnostics(cmd.ErrOrStderr(), diags)
			if exam == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s, nothing written\n", name, plural(len(diags.Errors()), "error"))
				return &exitError{code: 1}
			}
			b, err := spec.Export(exam, t)
			if err != nil {
				return err
			}
			return writeOutput(cmd, out, 0o644, writeBytes(b))
		},
	}
	cmd.Flags().StringVarP(&target, "target", "t", string(spec.TargetIR), "output format: "+targetNames())
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	_ = cmd.RegisterFlagCompletionFunc("target", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{
			string(spec.TargetIR) + "\tcompiled exam for the examtui runtime",
			string(spec.TargetPipecatFlows) + "\tPipecat Flows node configs with controller metadata",
		}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func targetNames() string {
	names := make([]string, len(spec.Targets))
	for i, t := range spec.Targets {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

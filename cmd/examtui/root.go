package main

import (
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/cliguide"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "examtui",
		Short: "A terminal console for interactive oral exams",
		Long: `examtui runs interactive oral exams from a YAML specification: an examiner (LLM or
offline) observes each candidate turn, a runtime controller decides, and a terminal console
shows the transcript, evidence, guardrails and timers live.

With no arguments it opens the console on the built-in demo exam with the offline examiner
and typed answers.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd)
		},
	}
	root.SetVersionTemplate("examtui {{.Version}}\n")
	addGlobalFlags(root)
	root.AddCommand(
		newCheckCmd(),
		newCompileCmd(),
		newSchemaCmd(),
		newGraphCmd(),
		newTestCmd(),
		newRunCmd(),
		newSessionsCmd(),
		newAuditCmd(),
		newCandidatesCmd(),
		newMarksCmd(),
		newCandidatesCmd(),
		newReplayCmd(),
		newValidateArtifactCmd(),
		newDevicesCmd(),
		newAudioCmd(),
		newTokenCmd(),
		newWatchCmd(),
		newWorkerCmd(),
		newDispatchCmd(),
		newMonitorCmd(),
		newControllerCmd(),
		newServeCmd(),
		newLTICmd(),
		newDoctorCmd(),
		newMarkCmd(),
	)
	cliguide.Install(root) // after every command is added: it walks the tree
	return root
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// scriptFormat is the `sessions export --format` that turns a session into a candidate script.
const scriptFormat = "script"

// exportScript writes session idOrPrefix as a candidate script (`examtui test` format) whose
// expectations are the decisions the session made.
func exportScript(cmd *cobra.Command, idOrPrefix, output string) error {
	return withSession(cmd, idOrPrefix, func(st *sessions.Store, id string) error {
		sess, events, err := st.Load(cmd.Context(), id)
		if err != nil {
			return err
		}
		examiner := "offline"
		if strings.HasPrefix(sess.Examiner, "llm") {
			examiner = "llm"
		}
		specLine := scriptSpecPath(sess.SpecPath, output)
		if specLine == "" {
			// No spec file recorded: the built-in demo is the one exam a script can name without one.
			demo, _, derr := spec.Compile(examples.DemoSpecName, examples.Demo())
			if derr != nil || demo.ID != sess.ExamID {
				return fmt.Errorf("session %s does not record its spec file: cannot write the script's spec line", id)
			}
			specLine = headless.DemoSpec
		}
		b, err := headless.ScriptFromEvents(events, headless.ExportOptions{
			Spec:     specLine,
			Examiner: examiner,
			Header: fmt.Sprintf("Candidate script exported from session %s (%s input, %s examiner), %s.\n"+
				"Run it with: examtui test FILE   After a spec change, review the differences, then: examtui test --update FILE",
				sess.ID, sess.Input, sess.Examiner, sess.StartedAt.UTC().Format("2006-01-02 15:04 UTC")),
		})
		if err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
		return writeOutput(cmd, output, 0o600, writeBytes(b)) // an exam record: personal data
	})
}

// scriptSpecPath is the spec line of an exported script: a script's spec is relative to the
// script, so a spec the session recorded is made relative to where the script is written
// (absolute when that cannot be done).
func scriptSpecPath(specPath, output string) string {
	if specPath == "" || specPath == demoArg {
		return specPath
	}
	abs, err := filepath.Abs(specPath)
	if err != nil {
		return specPath
	}
	dir, err := os.Getwd()
	if output != "" && output != "-" {
		dir, err = filepath.Abs(filepath.Dir(output))
	}
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(dir, abs); err == nil {
		return filepath.ToSlash(rel)
	}
	return abs
}

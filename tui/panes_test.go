package tui

// Typed access to the root model's panes, for tests that look inside one.

func transcriptOf(m *Model) *transcriptPane { return m.panes[PaneTranscript].(*transcriptPane) }
func evidenceOf(m *Model) *evidencePane     { return m.panes[PaneEvidence].(*evidencePane) }
func guardrailsOf(m *Model) *guardrailsPane { return m.panes[PaneGuardrails].(*guardrailsPane) }
func timersOf(m *Model) *timersPane         { return m.panes[PaneTimers].(*timersPane) }

// viewAt renders a pane's inner lines at width×height.
func viewAt(p pane, width, height int) []string {
	p.setSize(width, height)
	return p.view()
}

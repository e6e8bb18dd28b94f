package tui

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

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

// TestPanesRestyle: after the terminal reports a light background, every pane draws exactly
// what a console built for a light background draws, so no pane keeps lines cached in the
// dark palette.
func TestPanesRestyle(t *testing.T) {
	build := func(opts ...Option) *Model {
		m, err := New(hotelInfo, &fakeBackend{}, append([]Option{WithNoColor(false), WithEventClock(), WithTickInterval(0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(readJSONL(t, hotelJSONL)...)
		return m
	}
	restyled, light := build(), build(WithDarkBackground(false))
	const w, h = 70, 30
	for _, id := range paneOrder {
		viewAt(restyled.panes[id], w, h) // fill the caches in the dark palette
	}
	drive(t, restyled, tea.BackgroundColorMsg{Color: color.White})
	for _, id := range paneOrder {
		t.Run(id.String(), func(t *testing.T) {
			got, want := viewAt(restyled.panes[id], w, h), viewAt(light.panes[id], w, h)
			if !slices.Equal(got, want) {
				t.Errorf("restyled pane differs from a light one:\n%q\nwant\n%q", got, want)
			}
			if !sgrColour.MatchString(strings.Join(got, "\n")) {
				t.Error("the pane has no colour to compare")
			}
		})
	}
}

package tui

import (
	tea "charm.land/bubbletea/v2"

	"time"

	"github.com/examtui/examtui/runtime"
)

// EventsMsg carries runtime events to the console, oldest first. Run's bridge batches events
// that arrive together so a fast stream (a replay) costs one frame per batch, not per event.
type EventsMsg []runtime.Event

// StreamEndedMsg says the event channel was closed: the session is over or the replay done.
type StreamEndedMsg struct{}

// AudioLevelMsg feeds the status line's audio meter. Level is 0..1 (RMS, scaled as the audio
// engine sees fit); State is the voice-activity state, e.g. "silence", "speech", "endpoint".
type AudioLevelMsg struct {
	Level float64
	State string
}

// backendResultMsg reports a finished Backend call.
type backendResultMsg struct {
	op  string
	err error
}

// inputSwitchedMsg reports a finished InputSwitcher call.
type inputSwitchedMsg struct {
	mode runtime.InputSource
	err  error
}

// tickMsg redraws the clocks; the time shown is computed from deadlines, never counted.
type tickMsg time.Time

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

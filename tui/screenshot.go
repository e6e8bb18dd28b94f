package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/runtime"
)

// Screenshot renders the console after the given events as plain text (no escape codes), at
// width×height cells: for the README, bug reports and golden tests. Timers read the time of
// the last event unless a clock option says otherwise.
func Screenshot(info Info, events []runtime.Event, width, height int, opts ...Option) (string, error) {
	if width < 20 || height < 8 {
		return "", fmt.Errorf("%w: %dx%d (need at least 20x8)", ErrInvalidSize, width, height)
	}
	opts = append([]Option{WithEventClock(), WithNoColor(true), WithDarkBackground(true), WithTickInterval(0)}, opts...)
	m, err := New(info, noBackend{}, opts...)
	if err != nil {
		return "", err
	}
	m.Apply(events...)
	m.Update(windowSize(width, height))
	return Plain(m.Render()), nil
}

// Plain strips escape codes and trailing spaces from a rendered frame.
func Plain(frame string) string {
	lines := strings.Split(ansi.Strip(frame), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// noBackend refuses every call: a screenshot has nothing to drive.
type noBackend struct{}

func (noBackend) SubmitText(string) error             { return ErrReadOnly }
func (noBackend) Control(runtime.ControlAction) error { return ErrReadOnly }
func (noBackend) Admin(runtime.AdminMode, string) error {
	return ErrReadOnly
}

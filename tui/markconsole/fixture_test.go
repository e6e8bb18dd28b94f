package markconsole_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/tui/markconsole"
)

// fixtureStart pins the session's clock so frames are the same on every run.
var fixtureStart = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const fixtureID = "5e55100000000001"

// recordRehearsal records the example rehearsal (real controller, offline examiner) in a real
// SQLite store: the demo exam, whose scheme has four criteria.
func recordRehearsal(t testing.TB, st *sessions.Store, id string, start time.Time, scheme ...func(*spec.CompiledMarking)) {
	t.Helper()
	ctx := context.Background()
	script, exam := runtimetest.Rehearsal(t)
	for _, f := range scheme {
		f(exam.Marking)
	}
	sess, err := st.Create(ctx, sessions.Meta{ID: id, Exam: exam, Candidate: "Priya", Examiner: "offline", Input: runtime.SourceTyped, StartedAt: start})
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(ctx, sess.ID, sessions.WithWaitCommit())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headless.Run(ctx, script, headless.Options{Sink: j, SessionID: sess.ID, Start: start}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// openStore opens a fresh store whose user is ana, the marker of these tests.
func openStore(t testing.TB) *sessions.Store {
	t.Helper()
	st, err := sessions.Open(context.Background(), t.TempDir(), sessions.WithLocalIdentity("ana"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// drive runs a command and every command its messages lead to, synchronously, as the program
// would (tea.Quit and batches excepted).
func drive(t testing.TB, m *markconsole.Model, cmd tea.Cmd) {
	t.Helper()
	for cmd != nil {
		msg := cmd()
		if msg == nil {
			return
		}
		if _, ok := msg.(tea.QuitMsg); ok {
			return
		}
		_, cmd = m.Update(msg)
	}
}

// press sends keys ("enter", "tab", "right", or text typed rune by rune with "type:").
func press(t testing.TB, m *markconsole.Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
				drive(t, m, cmd)
			}
			continue
		}
		_, cmd := m.Update(keyMsg(k))
		drive(t, m, cmd)
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// console opens the fixture session in a console of w×h for marker.
func console(t testing.TB, st *sessions.Store, marker string, run markconsole.PanelFunc, w, h int, noColor bool) *markconsole.Model {
	t.Helper()
	b, err := markconsole.NewStoreBackend(st, marker, "", run, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := markconsole.New(b, fixtureID, markconsole.WithNoColor(noColor))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	if m.Sheet() == nil {
		t.Fatalf("the session did not load:\n%s", m.Render())
	}
	return m
}

// playFixture is what the playback tests need: sox's play on the ALSA null device and a store
// holding the rehearsal as fixtureID.
func playFixture(t *testing.T) (string, *sessions.Store) {
	t.Helper()
	player, err := exec.LookPath("play")
	if err != nil {
		t.Fatalf("sox's play is required (apt-get install sox): %v", err)
	}
	t.Setenv("ALSA_CONFIG_PATH", filepath.Join("..", "..", "testdata", "asound-null.conf"))
	st := openStore(t)
	recordRehearsal(t, st, fixtureID, fixtureStart)
	return player, st
}

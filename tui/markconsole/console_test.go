package markconsole_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/tui"
	"github.com/examtui/examtui/tui/markconsole"
)

// P runs the model panel through the real go-openai client against two test servers; the
// criteria list and the detail show its levels, the dispersed criterion flagged.
func TestPanelInConsole(t *testing.T) {
	reply := func(options string) string {
		return `{"marks":[` +
			`{"criterion":"options","level":"` + options + `","rationale":"two options, not weighed","segments":["seg-0008"]},` +
			`{"criterion":"clientele","level":"analysis","rationale":"names the guests' hurry","segments":["seg-0010"]},` +
			`{"criterion":"resources","level":"evaluation","rationale":"staffing against revenue","segments":["seg-0013","seg-0015"]},` +
			`{"criterion":"communication","level":"description","rationale":"clear answers","segments":["seg-0003"]}]}`
	}
	a := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.ToolCall(reply("description")) }))
	b := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.ToolCall(reply("evaluation")) }))
	p, err := panel.New([]panel.Member{{Name: "alpha", Model: "m-a", BaseURL: a.URL()}, {Name: "beta", Model: "m-b", BaseURL: b.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	recordRehearsal(t, st, fixtureID, fixtureStart)
	m := console(t, st, "ana", p.Run, 120, 40, true)
	press(t, m, "P")
	frame := tui.Plain(m.Render())
	for _, want := range []string{"the model panel has marked", "panel description ⚑", "PANEL description · agreement 0.00 · spread 2 ⚑ levels 2 apart",
		"alpha description", "beta evaluation", "[seg-0008]"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the frame lacks %q:\n%s", want, frame)
		}
	}
	testutil.Golden(t, filepath.Join("testdata", "panel_120x40_plain.golden"), []byte(frame+"\n"))
	if len(a.ChatRequests()) != 2 || len(b.ChatRequests()) != 2 {
		t.Errorf("requests: %d and %d, want a first round and a revision each", len(a.ChatRequests()), len(b.ChatRequests()))
	}
	// The run was stored with the session: the console opened again (with no panel at all)
	// shows it without asking a model again.
	again := tui.Plain(console(t, st, "ana", nil, 120, 40, true).Render())
	for _, want := range []string{"PANEL description · agreement 0.00 · spread 2 ⚑ levels 2 apart", "alpha description", "beta evaluation"} {
		if !strings.Contains(again, want) {
			t.Errorf("reopened, the frame lacks %q:\n%s", want, again)
		}
	}
	if len(a.ChatRequests()) != 2 || len(b.ChatRequests()) != 2 {
		t.Errorf("reopening asked the models again: %d and %d requests", len(a.ChatRequests()), len(b.ChatRequests()))
	}
}

// p plays the candidate's recording from a second before the selected evidence's turn, with
// sox's play on the ALSA null device; a session without a recording says so.
func TestPlay(t *testing.T) {
	player, st := playFixture(t)
	ctx := context.Background()

	b, err := markconsole.NewStoreBackend(st, "ana", "", nil, player)
	if err != nil {
		t.Fatal(err)
	}
	m, err := markconsole.New(b, fixtureID, markconsole.WithNoColor(true))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	drive(t, m, m.Init())
	press(t, m, "p")
	if f := tui.Plain(m.Render()); !strings.Contains(f, "this session has no recording") {
		t.Errorf("no recording: the frame lacks the notice:\n%s", f)
	}

	wav := filepath.Join(t.TempDir(), "candidate.wav")
	if out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", wav, "synth", "60", "sine", "440").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	if err := st.SetRecordings(ctx, fixtureID, []string{wav, filepath.Join(filepath.Dir(wav), "examiner.wav")}); err != nil {
		t.Fatal(err)
	}
	m, err = markconsole.New(b, fixtureID, markconsole.WithNoColor(true))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	drive(t, m, m.Init())
	// The first criterion's evidence is seg-0008, said at 0:13 into the session.
	_, cmd := m.Update(keyMsg("p"))
	if f := tui.Plain(m.Render()); !strings.Contains(f, "playing from 0:12") || strings.Contains(f, "no recording") {
		t.Errorf("while playing:\n%s", f)
	}
	if cmd == nil {
		t.Fatal("p gave no command")
	}
	m.Update(cmd())
	if f := tui.Plain(m.Render()); strings.Contains(f, "playing") || strings.Contains(f, "play candidate.wav") {
		t.Errorf("after playing:\n%s", f)
	}
}

// The queue of an exam: the marker's unmarked sessions, oldest first; n moves on, and a
// session the marker has fully marked leaves the queue.
func TestQueue(t *testing.T) {
	st := openStore(t)
	first, second := "5e55100000000001", "5e55100000000002"
	recordRehearsal(t, st, first, fixtureStart)
	recordRehearsal(t, st, second, fixtureStart.Add(time.Hour))
	b, err := markconsole.NewStoreBackend(st, "ana", "hospitality-oral-b2", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := markconsole.New(b, "", markconsole.WithQueue(true), markconsole.WithNoColor(true))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	drive(t, m, m.Init())
	if s := m.Sheet(); s == nil || s.SessionID != first || s.Position != 1 || s.Total != 2 {
		t.Fatalf("queue start: %+v\n%s", m.Sheet(), tui.Plain(m.Render()))
	}
	press(t, m, "n")
	if s := m.Sheet(); s.SessionID != second || !strings.Contains(tui.Plain(m.Render()), "queue 2 of 2") {
		t.Fatalf("after n: %s\n%s", s.SessionID, tui.Plain(m.Render()))
	}
	for range 4 {
		press(t, m, "1", "enter", "type:Seen in the transcript.", "enter")
	}
	press(t, m, "n")
	if s := m.Sheet(); s.SessionID != first || s.Total != 1 || s.Position != 1 {
		t.Fatalf("after marking the second: %s %d of %d", s.SessionID, s.Position, s.Total)
	}
	for range 4 {
		press(t, m, "1", "enter", "type:Seen in the transcript.", "enter")
	}
	press(t, m, "n")
	if f := tui.Plain(m.Render()); !strings.Contains(f, "the queue is done") || !strings.Contains(f, "nothing left to mark") {
		t.Errorf("an empty queue:\n%s", f)
	}
}

// A locked session opens read-only: the marker's marks show, no level can be chosen or saved.
func TestLockedSession(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	recordRehearsal(t, st, fixtureID, fixtureStart)
	for _, c := range []string{"options", "clientele", "resources", "communication"} {
		if _, err := marking.SetMark(ctx, st, marking.Entry{SessionID: fixtureID, Criterion: c, Level: "description", Marker: "ana", Justification: "seen"}, fixtureStart); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := marking.Lock(ctx, st, fixtureID, "ana", fixtureStart); err != nil {
		t.Fatal(err)
	}
	m := console(t, st, "ana", nil, 120, 40, true)
	press(t, m, "2")
	f := tui.Plain(m.Render())
	if !strings.Contains(f, "locked") || !strings.Contains(f, "the marks of this session are locked") || !strings.Contains(f, "Criteria 4/4 · 4/12 fail") {
		t.Errorf("a locked session:\n%s", f)
	}
	press(t, m, "enter")
	if f := tui.Plain(m.Render()); strings.Contains(f, "justification>") {
		t.Errorf("a locked session asks for a justification:\n%s", f)
	}
}

// Double marking with a tolerance: once ana has saved a criterion the console says where it
// went (settled within tolerance, or to the moderator) and, once all are marked, her total and
// grade; it never shows ben's level or justification.
func TestToleranceOutcomeBlind(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sessions.Open(ctx, dir, sessions.WithLocalIdentity("ana"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	recordRehearsal(t, st, fixtureID, fixtureStart, func(m *spec.CompiledMarking) {
		m.Markers = 2
		m.Moderation = &spec.CompiledModeration{Tolerance: 1, Settle: spec.SettleLower}
	})
	ben, err := sessions.Open(ctx, dir, sessions.WithLocalIdentity("ben"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ben.Close() })
	const secret = "Ben weighs it as evaluation"
	for c, l := range map[string]string{"options": "analysis", "clientele": "evaluation", "resources": "analysis", "communication": "description"} {
		if _, err := marking.SetMark(ctx, ben, marking.Entry{SessionID: fixtureID, Criterion: c, Level: l, Justification: secret}, fixtureStart); err != nil {
			t.Fatal(err)
		}
	}
	m := console(t, st, "ana", nil, 120, 40, true)
	if f := tui.Plain(m.Render()); strings.Contains(f, "┃    → ") || strings.Contains(f, secret) || strings.Contains(f, "ben") {
		t.Fatalf("before marking, the console shows an outcome or ben's mark:\n%s", f)
	}
	save := func(key, why string) {
		t.Helper()
		press(t, m, key, "enter")
		for _, r := range why {
			press(t, m, string(r))
		}
		press(t, m, "enter")
	}
	save("1", "one option") // options: description against ben's analysis: one level
	f := tui.Plain(m.Render())
	if !strings.Contains(f, "→ settled (lower)") {
		t.Errorf("options within tolerance:\n%s", f)
	}
	save("1", "guests described") // clientele: description against evaluation: two levels
	save("2", "costs weighed")    // resources: analysis, agreed
	save("1", "clear")            // communication: description, agreed
	f = tui.Plain(m.Render())
	for _, want := range []string{"→ to moderator", "→ agreed", "Criteria 4/4 · 6/12 pass"} {
		if !strings.Contains(f, want) {
			t.Errorf("missing %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, secret) || strings.Contains(f, "ben") || strings.Contains(f, "evaluation ✓") {
		t.Errorf("the console shows ben's mark:\n%s", f)
	}
}

package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// drive sends msgs to the model and runs every command they return (as Bubble Tea would),
// feeding results back. It reports whether a quit was requested.
func drive(t *testing.T, m *Model, msgs ...tea.Msg) (quit bool) {
	t.Helper()
	queue := append([]tea.Msg(nil), msgs...)
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		_, cmd := m.Update(msg)
		for _, out := range run(cmd) {
			switch out.(type) {
			case tea.QuitMsg:
				quit = true
			case backendResultMsg, inputSwitchedMsg:
				queue = append(queue, out)
			}
		}
	}
	return quit
}

// run executes a command tree, returning the messages it produced.
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// namedKeys are the keys press knows by name; other names are ctrl+letter or one character.
var namedKeys = map[string]tea.KeyPressMsg{
	"enter":     {Code: tea.KeyEnter},
	"tab":       {Code: tea.KeyTab},
	"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	"esc":       {Code: tea.KeyEscape},
	"up":        {Code: tea.KeyUp},
	"down":      {Code: tea.KeyDown},
	"pgup":      {Code: tea.KeyPgUp},
	"pgdown":    {Code: tea.KeyPgDown},
	"home":      {Code: tea.KeyHome},
	"end":       {Code: tea.KeyEnd},
	"f1":        {Code: tea.KeyF1},
	"f2":        {Code: tea.KeyF2},
	"ctrl+end":  {Code: tea.KeyEnd, Mod: tea.ModCtrl},
}

func press(s string) tea.KeyPressMsg {
	if k, ok := namedKeys[s]; ok {
		return k
	}
	if strings.HasPrefix(s, "ctrl+") {
		return ctrl(rune(s[5]))
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func keys(ss ...string) []tea.Msg {
	var out []tea.Msg
	for _, s := range ss {
		if strings.HasPrefix(s, "type:") {
			for _, k := range typed(s[5:]) {
				out = append(out, k)
			}
			continue
		}
		out = append(out, press(s))
	}
	return out
}

func TestKeyBindings(t *testing.T) {
	paused := runtime.Event{Event: runtime.EventExamState, SessionID: "s-hotel-0001", Seq: 1000,
		Payload: []byte(`{"state":"paused","previous":"in_progress"}`)}
	cases := []struct {
		name      string
		pre       []runtime.Event
		msgs      []tea.Msg
		wantCalls []string
		wantQuit  bool
		check     func(t *testing.T, m *Model)
	}{
		{name: "enter sends the typed answer and clears the line",
			msgs: keys("type:A buffet with hot dishes", "enter"), wantCalls: []string{"submit:A buffet with hot dishes"},
			check: func(t *testing.T, m *Model) {
				if v := m.input.Value(); v != "" {
					t.Errorf("input not cleared: %q", v)
				}
				if !strings.Contains(m.notice, "answer sent") {
					t.Errorf("notice %q", m.notice)
				}
			}},
		{name: "enter on an empty line sends nothing", msgs: keys("type:   ", "enter")},
		{name: "letters type into the input line", msgs: keys("type:jkq?gG"),
			check: func(t *testing.T, m *Model) {
				if m.input.Value() != "jkq?gG" || m.showHelp || m.confirm != confirmNone {
					t.Errorf("input %q help %v confirm %v", m.input.Value(), m.showHelp, m.confirm)
				}
			}},
		{name: "ctrl+p pauses a running exam", msgs: keys("ctrl+p"), wantCalls: []string{"control:pause"}},
		{name: "ctrl+p resumes a paused exam", pre: []runtime.Event{paused}, msgs: keys("ctrl+p"), wantCalls: []string{"control:resume"}},
		{name: "ctrl+s skips", msgs: keys("ctrl+s"), wantCalls: []string{"control:skip"}},
		{name: "ctrl+y promotes the queued instruction", msgs: keys("ctrl+y"), wantCalls: []string{"control:promote"}},
		{name: "ctrl+n advances", msgs: keys("ctrl+n"), wantCalls: []string{"control:advance"}},
		{name: "ctrl+x asks, y ends", msgs: keys("ctrl+x", "y"), wantCalls: []string{"control:end"}},
		{name: "ctrl+x asks, n cancels", msgs: keys("ctrl+x", "n"),
			check: func(t *testing.T, m *Model) {
				if m.confirm != confirmNone {
					t.Error("confirmation still open")
				}
			}},
		{name: "ctrl+x then typing does not leak into the input", msgs: keys("ctrl+x", "type:abc", "esc"),
			check: func(t *testing.T, m *Model) {
				if m.input.Value() != "" {
					t.Errorf("input %q", m.input.Value())
				}
			}},
		{name: "instruction, immediate", msgs: keys("ctrl+o", "type:Speak slower please", "enter"),
			wantCalls: []string{"admin:immediate:Speak slower please"},
			check: func(t *testing.T, m *Model) {
				if m.adminOpen || m.input.Value() != "" {
					t.Errorf("admin open %v, input %q", m.adminOpen, m.input.Value())
				}
			}},
		{name: "instruction, tab switches to queued", msgs: keys("ctrl+o", "tab", "type:Ask about weekend cover", "enter"),
			wantCalls: []string{"admin:queued:Ask about weekend cover"}},
		{name: "instruction, tab twice is immediate again", msgs: keys("ctrl+o", "tab", "tab", "type:x", "enter"),
			wantCalls: []string{"admin:immediate:x"}},
		// An instruction never becomes a line to say by tab, whatever mode the box last had.
		{name: "instruction, reopened queued, tab is immediate", msgs: keys("ctrl+o", "tab", "type:a", "enter", "ctrl+o", "tab", "type:b", "enter"),
			wantCalls: []string{"admin:queued:a", "admin:immediate:b"}},
		{name: "ctrl+l opens a line to say", msgs: keys("ctrl+l", "type:We have five minutes left.", "enter"),
			wantCalls: []string{"admin:say:We have five minutes left."}},
		{name: "the box names a line to say", msgs: keys("ctrl+l", "type:Hello."),
			check: func(t *testing.T, m *Model) {
				if m.adminInput.Prompt != "say> " || !strings.Contains(m.footerLine(), "word for word") {
					t.Errorf("prompt %q, footer %q", m.adminInput.Prompt, m.footerLine())
				}
			}},
		{name: "tab from say names an instruction again", msgs: keys("ctrl+l", "tab"),
			check: func(t *testing.T, m *Model) {
				if m.adminMode != runtime.AdminImmediate || m.adminInput.Prompt != "instruction> " {
					t.Errorf("mode %s prompt %q", m.adminMode, m.adminInput.Prompt)
				}
			}},
		{name: "ctrl+o after a line to say is an instruction again", msgs: keys("ctrl+l", "type:Hello.", "enter", "ctrl+o", "type:Ask about costs.", "enter"),
			wantCalls: []string{"admin:say:Hello.", "admin:immediate:Ask about costs."}},
		{name: "instruction, esc cancels", msgs: keys("ctrl+o", "type:never mind", "esc", "enter"),
			check: func(t *testing.T, m *Model) {
				if m.adminOpen || m.focus != PaneInput {
					t.Errorf("admin open %v focus %v", m.adminOpen, m.focus)
				}
			}},
		{name: "ctrl+r toggles debug and focuses it", msgs: keys("ctrl+r"),
			check: func(t *testing.T, m *Model) {
				if !m.showDebug || m.focus != PaneDebug {
					t.Errorf("debug %v focus %v", m.showDebug, m.focus)
				}
				if _, ok := m.rects[PaneDebug]; !ok {
					t.Error("debug pane not laid out")
				}
			}},
		{name: "f2 twice hides debug", msgs: keys("f2", "f2"),
			check: func(t *testing.T, m *Model) {
				if m.showDebug {
					t.Error("debug still shown")
				}
				if _, ok := m.rects[PaneDebug]; ok {
					t.Error("debug pane still laid out")
				}
				if _, ok := m.rects[m.focus]; !ok && m.focus != PaneInput {
					t.Errorf("focus %v is off screen", m.focus)
				}
			}},
		{name: "f1 opens help, esc closes", msgs: keys("f1"),
			check: func(t *testing.T, m *Model) {
				if !m.showHelp {
					t.Fatal("help not shown")
				}
				drive(t, m, press("esc"))
				if m.showHelp {
					t.Error("help not closed")
				}
			}},
		{name: "? opens help from a pane", msgs: keys("tab", "?"),
			check: func(t *testing.T, m *Model) {
				if !m.showHelp {
					t.Error("help not shown")
				}
			}},
		{name: "tab cycles focus through the panes", msgs: keys("tab"),
			check: func(t *testing.T, m *Model) {
				var seen []PaneID
				seen = append(seen, m.focus)
				for range 5 {
					drive(t, m, press("tab"))
					seen = append(seen, m.focus)
				}
				want := []PaneID{PaneTranscript, PaneEvidence, PaneGuardrails, PaneTimers, PaneInput, PaneTranscript}
				if !slices.Equal(seen, want) {
					t.Errorf("focus order %v, want %v", seen, want)
				}
			}},
		{name: "shift+tab goes back", msgs: keys("shift+tab"),
			check: func(t *testing.T, m *Model) {
				if m.focus != PaneTimers {
					t.Errorf("focus %v", m.focus)
				}
			}},
		{name: "esc returns to the input", msgs: keys("tab", "tab", "esc"),
			check: func(t *testing.T, m *Model) {
				if m.focus != PaneInput || !m.input.Focused() {
					t.Errorf("focus %v", m.focus)
				}
			}},
		{name: "up and pgup from the input scroll the transcript", msgs: keys("up", "pgup"),
			check: func(t *testing.T, m *Model) {
				if transcriptOf(m).scroll.offset <= 1 {
					t.Errorf("offset %d", transcriptOf(m).scroll.offset)
				}
				drive(t, m, press("pgdown"), press("down"))
				if transcriptOf(m).scroll.offset != 0 {
					t.Errorf("offset %d after scrolling back", transcriptOf(m).scroll.offset)
				}
			}},
		{name: "k, j, home, end scroll a focused pane", msgs: keys("tab", "k", "k"),
			check: func(t *testing.T, m *Model) {
				if transcriptOf(m).scroll.offset != 2 {
					t.Errorf("offset %d after k k", transcriptOf(m).scroll.offset)
				}
				drive(t, m, press("j"))
				if transcriptOf(m).scroll.offset != 1 {
					t.Errorf("offset %d after j", transcriptOf(m).scroll.offset)
				}
				drive(t, m, press("home"))
				m.Render() // the top is found (and clamped) while rendering
				top := transcriptOf(m).scroll.offset
				if top < 1 || top > 200 {
					t.Errorf("offset %d after home", top)
				}
				if !strings.Contains(Plain(m.Render()), "welcome (node 1 of 4)") {
					t.Error("home does not show the first turn")
				}
				drive(t, m, press("end"))
				if transcriptOf(m).scroll.offset != 0 {
					t.Errorf("offset %d after end", transcriptOf(m).scroll.offset)
				}
			}},
		{name: "g and G in the evidence pane", msgs: keys("tab", "tab", "g"),
			check: func(t *testing.T, m *Model) {
				if m.focus != PaneEvidence || evidenceOf(m).scroll.offset == 0 {
					t.Errorf("focus %v offset %d", m.focus, evidenceOf(m).scroll.offset)
				}
				drive(t, m, press("G"))
				if evidenceOf(m).scroll.offset != 0 {
					t.Errorf("offset %d", evidenceOf(m).scroll.offset)
				}
			}},
		{name: "mouse wheel scrolls the pane under the pointer",
			msgs: []tea.Msg{tea.MouseWheelMsg{X: 100, Y: 30, Button: tea.MouseWheelUp}},
			check: func(t *testing.T, m *Model) {
				if guardrailsOf(m).scroll.offset != 3 || transcriptOf(m).scroll.offset != 0 {
					t.Errorf("guardrails %d transcript %d", guardrailsOf(m).scroll.offset, transcriptOf(m).scroll.offset)
				}
				drive(t, m, tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelUp}, tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelDown})
				if transcriptOf(m).scroll.offset != 0 {
					t.Errorf("transcript %d", transcriptOf(m).scroll.offset)
				}
			}},
		{name: "ctrl+c while running asks; y quits", msgs: keys("ctrl+c", "y"), wantQuit: true},
		{name: "ctrl+c while running asks; n stays", msgs: keys("ctrl+c", "n"),
			check: func(t *testing.T, m *Model) {
				if m.confirm != confirmNone {
					t.Error("still asking")
				}
			}},
		{name: "ctrl+c twice quits", msgs: keys("ctrl+c", "ctrl+c"), wantQuit: true},
		{name: "q in a pane asks", msgs: keys("tab", "q", "y"), wantQuit: true},
		{name: "ctrl+q after the exam ended quits at once", pre: []runtime.Event{{Event: runtime.EventExamState, SessionID: "s", Seq: 1000,
			Payload: []byte(`{"state":"completed","previous":"in_progress"}`)}}, msgs: keys("ctrl+q"), wantQuit: true},
		{name: "a paste goes to the input", msgs: []tea.Msg{tea.PasteMsg{Content: "pasted answer"}, press("enter")},
			wantCalls: []string{"submit:pasted answer"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &fakeBackend{}
			m := fixtureModel(t, b, 120, 40)
			m.Apply(tc.pre...)
			quit := drive(t, m, tc.msgs...)
			if quit != tc.wantQuit {
				t.Errorf("quit = %v, want %v", quit, tc.wantQuit)
			}
			if got := b.Calls(); !slices.Equal(got, tc.wantCalls) {
				t.Errorf("backend calls %q, want %q", got, tc.wantCalls)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}

func TestBackendErrorShowsInFooter(t *testing.T) {
	b := &fakeBackend{err: errors.New("controller is not running")}
	m := fixtureModel(t, b, 120, 40)
	drive(t, m, press("ctrl+s"))
	if !m.noticeErr || !strings.Contains(Plain(m.Render()), "skip failed: controller is not running") {
		t.Errorf("footer: %q", m.footerLine())
	}
}

func TestReadOnlyRefusesControls(t *testing.T) {
	m := newTestModel(t, Info{Title: "Replay", ReadOnly: true}, nil)
	m.Apply(readJSONL(t, hotelJSONL)...)
	drive(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, k := range []string{"ctrl+p", "ctrl+s", "ctrl+n", "ctrl+x", "ctrl+o"} {
		drive(t, m, press(k))
		if !m.noticeErr || m.confirm != confirmNone || m.adminOpen {
			t.Errorf("%s: notice %q confirm %v admin %v", k, m.notice, m.confirm, m.adminOpen)
		}
	}
	if m.focus != PaneTranscript {
		t.Errorf("read-only focus %v", m.focus)
	}
	screen := Plain(m.Render())
	if strings.Contains(screen, "answer>") || !strings.Contains(screen, "read-only") {
		t.Errorf("read-only screen:\n%s", screen)
	}
	// Nothing is running from the console's point of view: q quits at once.
	if !drive(t, m, press("q")) {
		t.Error("q did not quit a replay")
	}
}

func TestAudioLevelInStatusLine(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 120, 40)
	drive(t, m, AudioLevelMsg{Level: 0.5, State: "speech"})
	status := Plain(m.statusLine())
	if !strings.Contains(status, "audio ████░░░░ speech") {
		t.Errorf("status line %q", status)
	}
}

func TestNewValidates(t *testing.T) {
	cases := []struct {
		name string
		info Info
		b    Backend
		opts []Option
		want error
	}{
		{"nil backend", Info{}, nil, nil, ErrNilBackend},
		{"bad input", Info{Input: "telepathy"}, &fakeBackend{}, nil, ErrInvalidInput},
		{"bad confidence", Info{}, &fakeBackend{}, []Option{WithSTTMinConfidence(1.5)}, ErrInvalidOption},
		{"nil clock", Info{}, &fakeBackend{}, []Option{WithClock(nil)}, ErrInvalidOption},
		{"nil logger", Info{}, &fakeBackend{}, []Option{WithLogger(nil)}, ErrInvalidOption},
		{"negative tick", Info{}, &fakeBackend{}, []Option{WithTickInterval(-1)}, ErrInvalidOption},
		{"read-only without backend", Info{ReadOnly: true}, nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.info, tc.b, tc.opts...)
			if !errors.Is(err, tc.want) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestTranscriptJoinsSpokenParts(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 120, 40)
	before := len(transcriptOf(m).turns)
	r := newRecorder(t, "s-hotel-0001", fixtureStart.Add(time.Hour))
	r.seq = 1000
	r.at(0, &runtime.SpokenPayload{NodeID: "n", Source: "examiner", Text: "First sentence.", Streamed: true})
	r.at(0, &runtime.SpokenPayload{NodeID: "n", Source: "examiner", Text: "Second sentence.", Part: 1, Streamed: true, Intercepted: true})
	m.Apply(r.events...)
	if got := len(transcriptOf(m).turns) - before; got != 1 {
		t.Fatalf("%d turns added for one utterance in two parts", got)
	}
	last := transcriptOf(m).turns[len(transcriptOf(m).turns)-1]
	if last.text != "First sentence. Second sentence." || last.tag != "[intercepted]" {
		t.Errorf("joined turn %q tag %q", last.text, last.tag)
	}
	if !strings.Contains(Plain(m.Render()), "Examiner [intercepted]: First sentence. Second sentence.") {
		t.Error("joined turn not on screen")
	}
}

// TestScrolledTranscriptStaysPut: a reader scrolled back is not yanked by new turns, and a
// reader at the bottom follows them.
func TestScrolledTranscriptStaysPut(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 120, 40)
	r := newRecorder(t, "s-hotel-0001", fixtureStart.Add(time.Hour))
	r.seq = 1000
	say := func(text string) {
		r.at(time.Second, &runtime.SpokenPayload{NodeID: "n", Source: "examiner", Text: text})
		m.Apply(r.events[len(r.events)-1])
	}
	drive(t, m, press("pgup"))
	before := strings.Join(transcriptOf(m).view(), "\n")
	say("A new question that arrives while the reader is scrolled back, long enough to wrap onto a second line of the pane.")
	// What the reader reads stays put; the last row says what arrived below.
	after := transcriptOf(m).view()
	if got := strings.Join(after[:len(after)-1], "\n"); !strings.HasPrefix(before, got) {
		t.Errorf("scrolled view moved:\n%s\n---\n%s", before, got)
	}
	if marker := Plain(after[len(after)-1]); !strings.Contains(marker, "3 new lines ↓") {
		t.Errorf("no new-lines marker at the bottom: %q", marker)
	}
	drive(t, m, press("end")) // end in the answer line follows the transcript again
	say("Newest line.")
	if v := transcriptOf(m).view(); !strings.Contains(v[len(v)-2], "Newest line.") && !strings.Contains(v[len(v)-1], "Newest line.") {
		t.Errorf("bottom view does not follow: %q", v[len(v)-2:])
	}
}

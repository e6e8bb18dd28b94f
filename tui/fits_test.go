package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// TestSessionIDNeverCut: at any width the status line keeps the session id whole (it is
// what --resume needs); the title, the examiner and the input give way first.
func TestSessionIDNeverCut(t *testing.T) {
	info := hotelInfo
	info.SessionID = "a33cb607d60544d9"
	for w := 40; w <= 200; w += 4 {
		m := newTestModel(t, info, &fakeBackend{}, WithEventClock())
		m.Apply(readJSONL(t, hotelJSONL)...)
		m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		status := Plain(strings.SplitN(m.Render(), "\n", 2)[0])
		if !strings.Contains(status, "session "+info.SessionID) {
			t.Errorf("width %d: session id cut: %q", w, status)
		}
	}
}

// TestReplayStatusSaysReadOnly: a replay is read-only and its status line says so, as an
// observer's does.
func TestReplayStatusSaysReadOnly(t *testing.T) {
	m := replayModel(t, &fakeReplayer{speed: 1}, 120, 40)
	if status := Plain(strings.SplitN(m.Render(), "\n", 2)[0]); !strings.Contains(status, "read-only") {
		t.Errorf("replay status without read-only: %q", status)
	}
}

// TestConsoleAt80x24 walks the states of the console on the smallest supported terminal and
// says what each must still show.
func TestConsoleAt80x24(t *testing.T) {
	cases := []struct {
		name string
		keys []tea.Msg
		want []string // substrings of the plain screen
		deny []*regexp.Regexp
	}{
		{"help keeps its close note", []tea.Msg{press("f1")}, []string{"Press ? , f1 or esc to close.", "ctrl+r/f2"}, nil},
		{"instruction hint whole", []tea.Msg{ctrl('o')}, []string{"[immediate]", "esc: cancel"}, nil},
		{"say hint whole", []tea.Msg{ctrl('l')}, []string{"[say]", "esc: cancel"}, nil},
		{"debug shows a turn, JSON cut between tokens", []tea.Msg{ctrl('r')},
			[]string{"decision:", "↑ more above"},
			// A JSON key or string cut at a line end ("needsFollowUp":┃ then true on the next).
			[]*regexp.Regexp{regexp.MustCompile(`"[A-Za-z]+┃`), regexp.MustCompile(`┃\s+[a-z]+":`)}},
		{"guardrails focused: headers and more above", []tea.Msg{press("tab"), press("tab"), press("tab")},
			[]string{"↑ more above", "09:01:04 persona_break · replace"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(t, &fakeBackend{}, 80, 24)
			drive(t, m, tc.keys...)
			frame := m.Render()
			requireFits(t, frame, 80)
			screen := Plain(frame)
			for _, w := range tc.want {
				if !strings.Contains(screen, w) {
					t.Errorf("screen lacks %q:\n%s", w, screen)
				}
			}
			for _, re := range tc.deny {
				if re.MatchString(screen) {
					t.Errorf("screen matches %v:\n%s", re, screen)
				}
			}
		})
	}
}

// TestGuardDetailReadable: a filter's "ACTION: WHY: PHRASE" detail reads as words.
func TestGuardDetailReadable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"drop_hint: hint: hint", "drop_hint · “hint”"},
		{"drop: evaluative praise or judgement: well done", "drop · evaluative praise or judgement “well done”"},
		{"keep_first: 3 questions in one line: kept the first (\"What?\")", "keep_first · 3 questions in one line: kept the first (\"What?\")"},
		{"signal id in spoken text", "signal id in spoken text"},
	} {
		if got := guardDetail(tc.in); got != tc.want {
			t.Errorf("guardDetail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestGuardDetailFromParts: a payload that carries the filter's action, reason and phrase
// apart is said from them, the same way, also where the one-line detail cannot be split back
// (a phrase with ": " or quotes in it); a payload without them reads its detail as before.
func TestGuardDetailFromParts(t *testing.T) {
	for _, tc := range []struct {
		e    guardEntry
		want string
	}{
		{guardEntry{filterAction: "drop_hint", reason: "hint", phrase: "hint", detail: "drop_hint: hint: hint"}, "drop_hint · “hint”"},
		{guardEntry{filterAction: "drop", reason: "reveals an answer", phrase: "the answer is: yes",
			detail: "drop: reveals an answer: the answer is: yes"}, "drop · reveals an answer “the answer is: yes”"},
		{guardEntry{filterAction: "drop", reason: "repeats the examiner's instruction", phrase: `ask about "cover"`,
			detail: `drop: repeats the examiner's instruction: "ask about \"cover\""`}, "drop · repeats the examiner's instruction “ask about \"cover\"”"},
		{guardEntry{filterAction: "summarize", reason: "612 characters > maxChars 400", detail: "summarize: 612 characters > maxChars 400"}, "summarize · 612 characters > maxChars 400"},
		{guardEntry{detail: "drop_hint: hint: hint"}, "drop_hint · “hint”"},
	} {
		if got := tc.e.readableDetail(); got != tc.want {
			t.Errorf("readableDetail(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestWrappedLinesHang: every wrapped line of the transcript, the guardrails and the debug
// view starts indented under its first line, instruction and system lines included.
func TestWrappedLinesHang(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 80, 24)
	r := newRecorder(t, "s-hotel-0001", fixtureStart.Add(time.Hour))
	r.seq = 1000
	long := "Ask about weekend cover and how the rota changes when two of the team are away on holiday at once."
	r.at(time.Second, &runtime.AdminInstructionPayload{Status: runtime.AdminReceived, Mode: runtime.AdminQueued, Sender: "alice", Text: long})
	m.Update(EventsMsg{r.events[len(r.events)-1]})
	p := transcriptOf(m)
	lines := p.turns[len(p.turns)-1].cache.get(40, p.turns[len(p.turns)-1].render(p.st))
	if len(lines) < 2 {
		t.Fatalf("instruction did not wrap at 40: %q", lines)
	}
	for i, l := range lines[1:] {
		if !strings.HasPrefix(Plain(l), "  ") {
			t.Errorf("line %d of a wrapped instruction has no hanging indent: %q", i+2, Plain(l))
		}
	}
}

// TestSpaceJSON: commas and colons between tokens get a space; inside strings nothing moves.
func TestSpaceJSON(t *testing.T) {
	in := `{"a":"x, y: z","b":[1,2],"c":"q\"uo,te"}`
	want := `{"a": "x, y: z", "b": [1, 2], "c": "q\"uo,te"}`
	if got := spaceJSON(in); got != want {
		t.Errorf("spaceJSON(%s) = %s, want %s", in, got, want)
	}
}

// TestGoldenOverlaysEverySize: every overlay and box at 80×24, 120×40 and 200×60.
func TestGoldenOverlaysEverySize(t *testing.T) {
	states := []struct {
		name string
		keys []tea.Msg
	}{
		{"help", []tea.Msg{press("?")}},
		{"debug", []tea.Msg{ctrl('r')}},
		{"instruction", append([]tea.Msg{ctrl('o')}, keys("type:Ask about weekend cover")...)},
		{"say", append([]tea.Msg{ctrl('l')}, keys("type:Please take your time.")...)},
		{"confirm_end", []tea.Msg{ctrl('x')}},
		{"guardrails_focused", []tea.Msg{press("tab"), press("tab"), press("tab")}},
	}
	for _, sz := range goldenSizes {
		for _, st := range states {
			name := fmt.Sprintf("%s_%dx%d", st.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				m := fixtureModel(t, &fakeBackend{}, sz.w, sz.h)
				drive(t, m, st.keys...)
				requireFits(t, m.Render(), sz.w)
				requireGolden(t, "sized_"+name+".golden", []byte(Plain(m.Render())+"\n"))
			})
		}
	}
}

// TestNoticeStaysInTranscript: the notice a console opens with (why --mic fell back to typing)
// is in the footer and stays in the transcript after the footer moves on.
func TestNoticeStaysInTranscript(t *testing.T) {
	info := hotelInfo
	info.Notice = "Answers are typed: --mic found no speech recogniser. Set EXAMTUI_STT_BASE_URL."
	m := newTestModel(t, info, &fakeBackend{}, WithEventClock())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if screen := Plain(m.Render()); !strings.Contains(screen, "Answers are typed") {
		t.Fatalf("no notice on the opening screen:\n%s", screen)
	}
	drive(t, m, keys("type:Hello", "enter")...)
	screen := Plain(m.Render())
	if !strings.Contains(screen, "Set EXAMTUI_STT_BASE_URL") {
		t.Errorf("the notice is gone once the footer moved on:\n%s", screen)
	}
}

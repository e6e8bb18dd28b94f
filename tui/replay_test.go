package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// The sessions Player is the Replayer the replay command wires, with no adapter.
var _ Replayer = (*sessions.Player)(nil)

// fakeReplayer records every call and keeps the state a Player would; it refuses speeds
// outside 0.5..16 the way the Player does.
type fakeReplayer struct {
	mu      sync.Mutex
	calls   []string
	speed   float64
	paused  bool
	emitted int64
	refuse  error // returned by SetSpeed when set
}

func (f *fakeReplayer) record(s string) { f.calls = append(f.calls, s) }

func (f *fakeReplayer) SetSpeed(x float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(fmt.Sprintf("speed:%g", x))
	if f.refuse != nil {
		return f.refuse
	}
	if x < 0.5 || x > 16 {
		return fmt.Errorf("speed %g out of range", x)
	}
	f.speed = x
	return nil
}

// setPaused records call and leaves the replay paused or playing, as Pause, Resume and Step do.
func (f *fakeReplayer) setPaused(call string, paused bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(call)
	f.paused = paused
}

func (f *fakeReplayer) Pause()  { f.setPaused("pause", true) }
func (f *fakeReplayer) Resume() { f.setPaused("resume", false) }
func (f *fakeReplayer) Step()   { f.setPaused("step", true) }

func (f *fakeReplayer) State() (float64, bool, int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.speed, f.paused, f.emitted
}

func (f *fakeReplayer) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

var replayInfo = Info{Title: "Hospitality Management", Examiner: "offline", Input: runtime.SourceMic, ReadOnly: true}

func replayModel(t *testing.T, r Replayer, w, h int, opts ...Option) *Model {
	t.Helper()
	opts = append([]Option{WithReplay(r), WithReplayTotal(int64(len(hotelSession(t)))), WithNoColor(true),
		WithDarkBackground(true), WithTickInterval(0)}, opts...)
	m, err := New(replayInfo, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(windowSize(w, h))
	return m
}

func TestReplayOptions(t *testing.T) {
	cases := []struct {
		name string
		info Info
		opts []Option
		want error
	}{
		{"replay on a read-only console", replayInfo, []Option{WithReplay(&fakeReplayer{speed: 1}), WithReplayTotal(10)}, nil},
		{"nil replayer", replayInfo, []Option{WithReplay(nil)}, ErrInvalidOption},
		{"negative total", replayInfo, []Option{WithReplayTotal(-1)}, ErrInvalidOption},
		{"replay needs read-only", Info{Title: "x"}, []Option{WithReplay(&fakeReplayer{speed: 1})}, ErrInvalidOption},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b Backend
			if !tc.info.ReadOnly {
				b = &fakeBackend{}
			}
			m, err := New(tc.info, b, tc.opts...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("New: %v, want %v", err, tc.want)
			}
			if err == nil && !m.opts.eventClock {
				t.Error("a replay console must read event time")
			}
		})
	}
}

func TestReplayKeys(t *testing.T) {
	cases := []struct {
		name       string
		speed      float64
		paused     bool
		ended      bool
		refuse     error
		msgs       []tea.Msg
		wantCalls  []string
		wantSpeed  float64
		wantPaused bool
		notice     string
		noticeErr  bool
	}{
		{name: "space pauses", speed: 1, msgs: keys(" "), wantCalls: []string{"pause"}, wantSpeed: 1, wantPaused: true, notice: "replay paused"},
		{name: "space resumes", speed: 1, paused: true, msgs: keys(" "), wantCalls: []string{"resume"}, wantSpeed: 1, notice: "replay resumed"},
		{name: "ctrl+p toggles the replay, not the exam", speed: 2, msgs: keys("ctrl+p", "ctrl+p"),
			wantCalls: []string{"pause", "resume"}, wantSpeed: 2, notice: "replay resumed"},
		{name: "+ doubles", speed: 1, msgs: keys("+"), wantCalls: []string{"speed:2"}, wantSpeed: 2, notice: "replay speed 2×"},
		{name: "= is + without shift", speed: 4, msgs: keys("="), wantCalls: []string{"speed:8"}, wantSpeed: 8},
		{name: "+ four times from 1 reaches 16", speed: 1, msgs: keys("+", "+", "+", "+"),
			wantCalls: []string{"speed:2", "speed:4", "speed:8", "speed:16"}, wantSpeed: 16},
		{name: "+ at 16 stays", speed: 16, msgs: keys("+"), wantSpeed: 16, notice: "replay already at 16× (fastest)"},
		{name: "- halves", speed: 4, msgs: keys("-"), wantCalls: []string{"speed:2"}, wantSpeed: 2, notice: "replay speed 2×"},
		{name: "- down to 0.5", speed: 1, msgs: keys("-"), wantCalls: []string{"speed:0.5"}, wantSpeed: 0.5},
		{name: "- at 0.5 stays", speed: 0.5, msgs: keys("-", "_"), wantSpeed: 0.5, notice: "replay already at 0.5× (slowest)"},
		{name: "off-ladder speed moves to the next step up", speed: 3, msgs: keys("+"), wantCalls: []string{"speed:4"}, wantSpeed: 4},
		{name: "off-ladder speed moves to the next step down", speed: 3, msgs: keys("-"), wantCalls: []string{"speed:2"}, wantSpeed: 2},
		{name: "a refused speed is an error notice", speed: 1, refuse: errors.New("no"), msgs: keys("+"),
			wantCalls: []string{"speed:2"}, wantSpeed: 1, notice: "speed 2× refused: no", noticeErr: true},
		{name: "n steps and pauses", speed: 1, msgs: keys("n"), wantCalls: []string{"step"}, wantSpeed: 1, wantPaused: true, notice: "stepped one event"},
		{name: "right arrow steps", speed: 1, msgs: []tea.Msg{tea.KeyPressMsg{Code: tea.KeyRight}}, wantCalls: []string{"step"}, wantSpeed: 1, wantPaused: true},
		{name: "step after the end does nothing", speed: 1, ended: true, msgs: keys("n"), wantSpeed: 1, notice: "nothing left to step"},
		{name: "exam controls are refused", speed: 1, msgs: keys("ctrl+s", "ctrl+n"), wantSpeed: 1, notice: ErrReadOnly.Error(), noticeErr: true},
		{name: "end is refused", speed: 1, msgs: keys("ctrl+x"), wantSpeed: 1, notice: ErrReadOnly.Error(), noticeErr: true},
		{name: "replay keys wait while help is open", speed: 1, msgs: keys("f1", " ", "+", "n"), wantSpeed: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReplayer{speed: tc.speed, paused: tc.paused, refuse: tc.refuse}
			m := replayModel(t, r, 120, 40)
			if tc.ended {
				m.Update(StreamEndedMsg{})
			}
			if quit := drive(t, m, tc.msgs...); quit {
				t.Fatal("a replay key quit the console")
			}
			if got := r.Calls(); !slices.Equal(got, tc.wantCalls) {
				t.Errorf("replayer calls %q, want %q", got, tc.wantCalls)
			}
			if m.replayView.speed != tc.wantSpeed || m.replayView.paused != tc.wantPaused {
				t.Errorf("status shows speed %g paused %v, want %g %v", m.replayView.speed, m.replayView.paused, tc.wantSpeed, tc.wantPaused)
			}
			if !strings.Contains(m.notice, tc.notice) || m.noticeErr != tc.noticeErr {
				t.Errorf("notice %q (error %v), want %q (error %v)", m.notice, m.noticeErr, tc.notice, tc.noticeErr)
			}
		})
	}
}

// TestReplayKeysLeaveNavigation checks the replay keys did not take the panes' letters.
func TestReplayKeysLeaveNavigation(t *testing.T) {
	r := &fakeReplayer{speed: 1}
	m := replayModel(t, r, 120, 40)
	m.Apply(hotelSession(t)...)
	drive(t, m, keys("k", "k", "tab", "?")...)
	if transcriptOf(m).scroll.offset != 2 || m.focus != PaneEvidence || !m.showHelp {
		t.Errorf("scroll %d focus %v help %v", transcriptOf(m).scroll.offset, m.focus, m.showHelp)
	}
	if len(r.Calls()) != 0 {
		t.Errorf("navigation reached the replayer: %q", r.Calls())
	}
	if quit := drive(t, m, press("esc"), press("q")); !quit {
		t.Error("q does not quit a replay")
	}
}

// TestGoldenReplayStatus pins the status line through a replay's states.
func TestGoldenReplayStatus(t *testing.T) {
	events := hotelSession(t)
	cases := []struct {
		name   string
		speed  float64
		paused bool
		upTo   int // events applied
		ended  bool
		total  bool
		width  int
	}{
		{"start 1x playing", 1, false, 0, false, true, 120},
		{"4x playing", 4, false, 12, false, true, 120},
		{"half speed paused", 0.5, true, 20, false, true, 120},
		{"16x without a total", 16, false, 20, false, false, 120},
		{"finished", 16, false, len(events), true, true, 120},
		{"narrow", 2, true, 12, false, true, 80},
	}
	var out strings.Builder
	for _, tc := range cases {
		r := &fakeReplayer{speed: tc.speed, paused: tc.paused}
		var opts []Option
		if !tc.total {
			opts = append(opts, WithReplayTotal(0))
		}
		m := replayModel(t, r, tc.width, 40, opts...)
		m.Update(EventsMsg(events[:tc.upTo]))
		if tc.ended {
			m.Update(StreamEndedMsg{})
		}
		requireFits(t, m.statusLine(), tc.width)
		fmt.Fprintf(&out, "%-22s|%s|\n", tc.name, Plain(m.statusLine()))
	}
	requireGolden(t, "replay_status.golden", []byte(out.String()))
}

func TestGoldenReplayScreens(t *testing.T) {
	events := hotelSession(t)
	cases := []struct {
		name string
		keys []tea.Msg
		w, h int
	}{
		{"replay_paused_120x40", keys(" "), 120, 40},
		{"replay_help_120x40", keys("f1"), 120, 40},
		{"replay_80x24", nil, 80, 24},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := replayModel(t, &fakeReplayer{speed: 4}, tc.w, tc.h)
			m.Update(EventsMsg(events[:len(events)*2/3]))
			drive(t, m, tc.keys...)
			requireFits(t, m.Render(), tc.w)
			requireGolden(t, "screen_"+tc.name+".golden", []byte(Plain(m.Render())+"\n"))
		})
	}
}

// TestReplayWithPlayer drives the console through teatest with the real sessions Player:
// started paused, n releases exactly one event, space lets the rest play at 16×, and the
// console ends showing what the recorded session showed.
func TestReplayWithPlayer(t *testing.T) {
	events := hotelSession(t)
	p, err := sessions.NewPlayer(sessions.SliceEvents(events), sessions.WithStartPaused(),
		sessions.WithSpeed(16), sessions.WithGapCap(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, replayInfo, nil, WithReplay(p), WithReplayTotal(int64(len(events))))
	applied := make(chan int, len(events)+1) // events per EventsMsg, as the program saw them
	ended := make(chan struct{})
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg := msg.(type) {
		case EventsMsg:
			applied <- len(msg)
		case StreamEndedMsg:
			close(ended)
		}
		return msg
	}
	ch := make(chan runtime.Event)
	tm := startProgram(t, m, filter, ch)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	played := make(chan error, 1)
	go func() {
		defer close(ch)
		played <- p.Run(ctx, func(ev runtime.Event) error {
			select {
			case ch <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()

	waitApplied := func(want int) {
		t.Helper()
		got := 0
		for got < want {
			got += testutil.Recv(t, applied, 10*time.Second, "more events to reach the console (%d of %d so far)", got, want)
		}
		if got != want {
			t.Fatalf("%d events reached the console, want %d", got, want)
		}
	}
	// Paused from the start: nothing plays until a step. The player says so now, and its count
	// after the three steps below proves it (a paused player that played would have emitted
	// more than three), with no sleep to guess how long "nothing" takes.
	if _, paused, emitted := p.State(); !paused || emitted != 0 {
		t.Fatalf("before any step: paused %v emitted %d", paused, emitted)
	}
	for range 3 {
		tm.Send(press("n"))
		waitApplied(1)
	}
	if _, paused, emitted := p.State(); !paused || emitted != 3 {
		t.Fatalf("after three steps: paused %v emitted %d", paused, emitted)
	}
	tm.Send(press("+")) // 16× is the top: stays
	tm.Send(press("-"))
	tm.Send(press(" "))
	waitApplied(len(events) - 3)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the replay never ended")
	}
	if err := <-played; err != nil {
		t.Fatalf("player: %v", err)
	}
	speed, paused, emitted := p.State()
	if speed != 8 || paused || emitted != int64(len(events)) {
		t.Errorf("player speed %g paused %v emitted %d", speed, paused, emitted)
	}
	tm.Send(press("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)

	want := fixtureModel(t, &fakeBackend{}, 120, 40)
	if final.State() != want.State() || final.lastSeq != int64(len(events)) || evidenceOf(final).total != evidenceOf(want).total {
		t.Errorf("state %s seq %d evidence %d, want %s %d %d", final.State(), final.lastSeq, evidenceOf(final).total,
			want.State(), len(events), evidenceOf(want).total)
	}
	status := Plain(final.statusLine())
	if wantStatus := fmt.Sprintf("replay done event %d of %d", len(events), len(events)); !strings.Contains(status, wantStatus) {
		t.Errorf("status line %q lacks %q", status, wantStatus)
	}
}

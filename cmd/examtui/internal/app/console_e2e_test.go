package app_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// screenProbe asks the program's own loop for the frame it would draw now; the filter answers
// it, so the frame is read where Update and View run and never races them.
type screenProbe chan string

// console is the real console around a real exam, driven through teatest.
type console struct {
	t    *testing.T
	x    *app.Exam
	tm   *teatest.TestModel
	seen atomic.Int64 // events the console applied
	stop func()
}

// openConsole opens the demo exam with the offline examiner and a store in dir, and builds
// the console the way `examtui run` does (cmd/examtui/run.go), colourless and without the
// ticking clock so frames depend on events only.
func openConsole(t *testing.T, dir string) *console {
	t.Helper()
	return openConsoleWith(t, app.Options{SpecPath: "demo", Examiner: app.ExaminerOffline, DataDir: dir})
}

// openConsoleWith opens the exam o describes and the console around it.
func openConsoleWith(t *testing.T, o app.Options) *console {
	t.Helper()
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, o)
	m, err := tui.New(tui.Info{
		Title: x.Spec.Title, Examiner: x.Examiner, Input: x.Input, SessionID: x.SessionID,
	}, x, tui.WithSTTMinConfidence(x.Spec.Policies.STTMinConfidence),
		tui.WithNoColor(true), tui.WithDarkBackground(true), tui.WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	c := &console{t: t, x: x}
	c.program(m)
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c.bridge(m, x.Events())
	return c
}

// program runs m under teatest (120×40, no colour) with a filter that answers screen probes
// and counts the events the console applies.
func (c *console) program(m *tui.Model) {
	filter := func(model tea.Model, msg tea.Msg) tea.Msg {
		switch msg := msg.(type) {
		case screenProbe:
			msg <- tui.Plain(model.(*tui.Model).Render())
			return nil
		case tui.EventsMsg:
			c.seen.Add(int64(len(msg)))
		}
		return msg
	}
	c.tm = teatest.NewTestModel(c.t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithFilter(filter), tea.WithColorProfile(colorprofile.Ascii)))
}

// bridge feeds events to the program the way tui.Run does; c.stop (also a cleanup) ends it.
func (c *console) bridge(m *tui.Model, events <-chan runtime.Event) {
	done, bridged := make(chan struct{}), make(chan struct{})
	go func() { defer close(bridged); m.Bridge(done, events, c.tm.Send) }()
	var once atomic.Bool
	c.stop = func() {
		if once.CompareAndSwap(false, true) {
			close(done)
			<-bridged
		}
	}
	c.t.Cleanup(c.stop)
}

// screen is the frame the console shows now.
func (c *console) screen() string {
	c.t.Helper()
	p := make(screenProbe, 1)
	c.tm.Send(p)
	select {
	case s := <-p:
		return s
	case <-time.After(10 * time.Second):
		c.t.Fatal("the console stopped answering")
		return ""
	}
}

// waitScreen waits until the frame contains every one of want.
func (c *console) waitScreen(what string, want ...string) string {
	c.t.Helper()
	return testutil.WaitScreen(c.t, 15*time.Second, c.screen, what, want...)
}

func (c *console) key(k tea.KeyPressMsg) { c.tm.Send(k) }

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

func letter(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

var enter = tea.KeyPressMsg{Code: tea.KeyEnter}

// quit ends the program with ctrl+c and returns the final frame.
func (c *console) quit() string {
	c.t.Helper()
	c.key(ctrl('c'))
	final := c.tm.FinalModel(c.t, teatest.WithFinalTimeout(15*time.Second)).(*tui.Model)
	c.stop()
	return tui.Plain(final.Render())
}

// storedEvents closes the exam (committing every event) and reads the session back from a
// freshly opened store.
func storedEvents(t *testing.T, x *app.Exam, dir string) (*sessions.Session, []runtime.Event) {
	t.Helper()
	if err := x.Close(); err != nil {
		t.Fatalf("close exam: %v", err)
	}
	ctx := context.Background()
	st, err := sessions.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Get(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.LoadEvents(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	return sess, evs
}

func requireGapFree(t *testing.T, evs []runtime.Event, sid string) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events stored")
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.SessionID != sid {
			t.Fatalf("event %d has seq %d session %q, want seq %d session %q", i, ev.Seq, ev.SessionID, i+1, sid)
		}
		if _, err := ev.Decode(); err != nil {
			t.Fatalf("seq %d: %v", ev.Seq, err)
		}
	}
}

func decodeAll[P runtime.Payload](t *testing.T, evs []runtime.Event, typ runtime.EventType) []P {
	t.Helper()
	var out []P
	for _, ev := range evs {
		if ev.Event != typ {
			continue
		}
		pl, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pl.(P))
	}
	return out
}

// TestConsoleRehearsal types the hotel rehearsal's answers into the real console around the
// real controller, offline examiner and session store, watches each node arrive on screen,
// and reads the stored session back.
func TestConsoleRehearsal(t *testing.T) {
	script := apptest.Rehearsal(t)
	// What the screen must show once each answer has been handled: where the exam is, and the
	// evidence count (the offline examiner accepts one signal per substantive answer here).
	after := [][]string{
		{"Timers node 2 of 4", "✓ welcome", "▶ scenario-hotel-breakfast", "Evidence 0 accepted"},
		{"command repeat accepted", "▶ scenario-hotel-breakfast"},
		{"Evidence 1 accepted", "proposes_options", "1/2"},
		{"Timers node 3 of 4", "✓ scenario-hotel-breakfast", "▶ scenario-staff-rota", "Evidence 2 accepted", "analyses_clientele"},
		{"Evidence 3 accepted", "plans_staffing", "▶ scenario-staff-rota"},
		{"· completed ·", "Timers node 4 of 4", "✓ wrapup", "Evidence 4 accepted", "considers_budget", "exam completed"},
	}
	if len(script.Turns) != len(after) {
		t.Fatalf("the rehearsal has %d turns, the test expects %d", len(script.Turns), len(after))
	}

	dir := t.TempDir()
	c := openConsole(t, dir)
	c.waitScreen("start", "in_progress", "Timers node 1 of 4", "▶ welcome", "answer>")
	for i, turn := range script.Turns {
		if turn.Say == nil {
			t.Fatalf("turn %d is not a say step", i+1)
		}
		c.tm.Type(*turn.Say)
		c.key(enter)
		// The candidate's words reach the transcript, then the exam moves on.
		c.waitScreen("answer "+*turn.Say, append([]string{"answer sent"}, after[i]...)...)
	}
	final := c.quit()
	for _, w := range []string{"completed", "Guardrails 0 intercepted", "Evidence 4 accepted"} {
		if !strings.Contains(final, w) {
			t.Errorf("final screen lacks %q:\n%s", w, final)
		}
	}

	sess, evs := storedEvents(t, c.x, dir)
	requireGapFree(t, evs, c.x.SessionID)
	if got := c.seen.Load(); got != int64(len(evs)) {
		t.Errorf("the console applied %d events, the store holds %d", got, len(evs))
	}
	if sess.State != runtime.StateCompleted || sess.Interrupted || sess.EventCount != int64(len(evs)) {
		t.Errorf("session state %s interrupted %v count %d (stored %d)", sess.State, sess.Interrupted, sess.EventCount, len(evs))
	}
	completed := decodeAll[*runtime.ExamCompletedPayload](t, evs, runtime.EventExamCompleted)
	if len(completed) != 1 || completed[0].State != runtime.StateCompleted {
		t.Fatalf("exam_completed events %+v", completed)
	}
	if last := evs[len(evs)-1]; last.Event != runtime.EventExamCompleted {
		t.Errorf("last stored event is %s", last.Event)
	}
	var visited []string
	for _, n := range decodeAll[*runtime.NodeEnteredPayload](t, evs, runtime.EventNodeEntered) {
		visited = append(visited, n.NodeID)
	}
	want := []string{"welcome", "scenario-hotel-breakfast", "scenario-staff-rota", "wrapup"}
	if script.Expect.Visits == nil || !slices.Equal(*script.Expect.Visits, want) {
		t.Fatalf("the rehearsal expects visits %v, this test %v", script.Expect.Visits, want)
	}
	if !slices.Equal(visited, want) || !slices.Equal(completed[0].NodesVisited, want) {
		t.Errorf("visited %v (completed says %v), want %v", visited, completed[0].NodesVisited, want)
	}
	var typed []string
	for _, seg := range decodeAll[*runtime.TranscriptSegmentPayload](t, evs, runtime.EventTranscriptSegment) {
		if seg.Speaker == "candidate" && seg.IsFinal {
			typed = append(typed, seg.Text)
		}
	}
	if len(typed) != len(script.Turns) {
		t.Errorf("stored %d candidate turns, typed %d: %q", len(typed), len(script.Turns), typed)
	}
}

// TestConsoleControls uses the console's keys on a real controller: pause, resume, a quit
// and an end that are both cancelled, then an end that is confirmed. The stored exam_state
// events prove each key reached the controller.
func TestConsoleControls(t *testing.T) {
	dir := t.TempDir()
	c := openConsole(t, dir)
	c.waitScreen("start", "· in_progress ·", "▶ welcome")

	c.key(ctrl('p'))
	c.waitScreen("pause", "· paused ·", "State paused", "exam paused", "pause sent")
	c.key(ctrl('p'))
	c.waitScreen("resume", "· in_progress ·", "exam resumed", "resume sent")

	// Quitting a running exam asks first; n stays.
	c.key(ctrl('c'))
	c.waitScreen("quit asks", "Quit while the exam is running?")
	c.key(letter('n'))
	s := c.waitScreen("quit cancelled", "· in_progress ·")
	if strings.Contains(s, "Quit while") {
		t.Fatalf("the quit question stayed open:\n%s", s)
	}

	// Ending asks; n cancels and nothing reaches the controller.
	c.key(ctrl('x'))
	c.waitScreen("end asks", "End the exam now?")
	c.key(letter('n'))
	s = c.waitScreen("end cancelled", "· in_progress ·")
	if strings.Contains(s, "End the exam now?") {
		t.Fatalf("the end question stayed open:\n%s", s)
	}
	// Typing still goes to the answer line after the cancelled questions.
	c.tm.Type("draft")
	c.waitScreen("input kept", "answer> draft")
	for range len("draft") {
		c.key(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}

	c.key(ctrl('x'))
	c.waitScreen("end asks again", "End the exam now?")
	c.key(letter('y'))
	c.waitScreen("ended", "· aborted ·", "State aborted", "end sent", "■ welcome", "answer> the exam is aborted")
	// A late answer is refused by the console itself and stays in the line.
	c.tm.Type("late answer")
	c.key(enter)
	c.waitScreen("late answer", "the exam is aborted: answer not sent", "answer> late answer")

	// The exam is over: ctrl+c quits without asking.
	final := c.quit()
	if strings.Contains(final, "Quit while") {
		t.Errorf("quitting an ended exam asked for confirmation:\n%s", final)
	}

	sess, evs := storedEvents(t, c.x, dir)
	requireGapFree(t, evs, c.x.SessionID)
	var states []runtime.ExamState
	for _, st := range decodeAll[*runtime.ExamStatePayload](t, evs, runtime.EventExamState) {
		states = append(states, st.State)
	}
	i := slices.Index(states, runtime.StatePaused)
	if i < 1 || !slices.Equal(states[i-1:], []runtime.ExamState{
		runtime.StateInProgress, runtime.StatePaused, runtime.StateInProgress, runtime.StateAborted,
	}) {
		t.Errorf("exam states %v, want … in_progress paused in_progress aborted", states)
	}
	if n := strings.Count(strings.Join(stateNames(states), " "), "aborted"); n != 1 {
		t.Errorf("%d aborts stored (the cancelled end must not reach the controller)", n)
	}
	if sess.State != runtime.StateAborted || sess.Interrupted {
		t.Errorf("session state %s interrupted %v", sess.State, sess.Interrupted)
	}
	for _, seg := range decodeAll[*runtime.TranscriptSegmentPayload](t, evs, runtime.EventTranscriptSegment) {
		if seg.Speaker == "candidate" {
			t.Errorf("a candidate turn was stored (the draft was never sent): %q", seg.Text)
		}
	}
}

func stateNames(ss []runtime.ExamState) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return out
}

// TestConsoleSkipAdvanceInstruct: ctrl+n advances, ctrl+s skips and ctrl+o sends a queued
// instruction, all against the real controller; the node list and the store agree.
func TestConsoleSkipAdvanceInstruct(t *testing.T) {
	dir := t.TempDir()
	c := openConsole(t, dir)
	c.waitScreen("start", "· in_progress ·", "▶ welcome")

	c.key(ctrl('n'))
	c.waitScreen("advance", "advance sent", "Timers node 2 of 4", "✓ welcome", "▶ scenario-hotel-breakfast")
	c.key(ctrl('s'))
	c.waitScreen("skip", "skip sent", "Timers node 3 of 4", "↷ scenario-hotel-breakfast (skipped)", "▶ scenario-staff-rota")

	c.key(ctrl('o'))
	c.waitScreen("instruction box", "Examiner instruction (never read out) [immediate]", "instruction>")
	c.key(tea.KeyPressMsg{Code: tea.KeyTab})
	c.waitScreen("queued", "Examiner instruction (never read out) [queued]")
	c.tm.Type("Ask about overtime")
	c.key(enter)
	c.waitScreen("instruction sent", "instruction (queued) sent", "answer>")

	// An immediate instruction the offline examiner cannot act on is shown as such and never
	// spoken; the queued one follows it (the chain); ctrl+l says a line word for word.
	c.key(ctrl('o'))
	c.key(tea.KeyPressMsg{Code: tea.KeyTab})
	c.waitScreen("immediate again", "Examiner instruction (never read out) [immediate]")
	c.tm.Type("The candidate looks tired, wrap up soon")
	c.key(enter)
	c.waitScreen("not actionable", "instruction not actionable, nothing said", "Examiner: Could you tell me about overtime?")
	c.key(ctrl('l'))
	c.waitScreen("say box", "Say to the candidate, word for word [say]", "say>")
	c.tm.Type("We have five minutes left.")
	c.key(enter)
	c.waitScreen("said", "Examiner: We have five minutes left.")

	c.key(ctrl('x'))
	c.waitScreen("end asks", "End the exam now?")
	c.key(letter('y'))
	c.waitScreen("ended", "· aborted ·", "■ scenario-staff-rota", "↷ scenario-hotel-breakfast (skipped)")
	c.quit()

	_, evs := storedEvents(t, c.x, dir)
	requireGapFree(t, evs, c.x.SessionID)
	var exits []string
	for _, x := range decodeAll[*runtime.NodeExitPayload](t, evs, runtime.EventNodeExit) {
		exits = append(exits, x.NodeID+":"+x.Reason.String())
	}
	want := []string{"welcome:admin_advance", "scenario-hotel-breakfast:skipped", "scenario-staff-rota:ended"}
	if !slices.Equal(exits, want) {
		t.Errorf("node exits %q, want %q", exits, want)
	}
	// Controls are recorded as instructions too (mode control); the typed one is queued.
	var admin []string
	for _, a := range decodeAll[*runtime.AdminInstructionPayload](t, evs, runtime.EventAdminInstruction) {
		if !strings.HasPrefix(a.Sender, "console") {
			t.Errorf("instruction from %q, want the local console", a.Sender)
		}
		admin = append(admin, a.Mode.String()+":"+a.Text+":"+a.Status.String())
	}
	for _, want := range []string{"queued:Ask about overtime:received", "queued:Ask about overtime:promoted",
		"immediate:The candidate looks tired, wrap up soon:not_actionable", "say:We have five minutes left.:applied"} {
		if !slices.Contains(admin, want) {
			t.Errorf("admin instructions %q lack %q", admin, want)
		}
	}
	var said []string
	for _, sp := range decodeAll[*runtime.SpokenPayload](t, evs, runtime.EventSpoken) {
		if strings.Contains(sp.Text, "tired") {
			t.Errorf("the instruction was spoken: %+v", sp)
		}
		said = append(said, sp.Source.String()+": "+sp.Text)
	}
	if !slices.Contains(said, "say: We have five minutes left.") {
		t.Errorf("the line to say was not spoken as typed: %q", said)
	}
}

// TestConsoleDebugAndInputSwitch: on a real controller the Debug view shows a real turn's
// observation, decision trace and measured latency; the switch-input key on an exam started
// without a microphone path either is disabled (the exam says it cannot switch) or reports
// the controller's refusal, and the input stays typed.
func TestConsoleDebugAndInputSwitch(t *testing.T) {
	dir := t.TempDir()
	c := openConsole(t, dir)
	c.waitScreen("start", "· in_progress ·", "▶ welcome")
	c.tm.Type("Hello, I'm Priya and I'm on the hospitality management course.")
	c.key(enter)
	c.waitScreen("answer", "Timers node 2 of 4")

	c.key(ctrl('r'))
	c.waitScreen("debug", "Debug 1 turn", "latency over 1 turn", "turn 1 valid · welcome · offline",
		"decision: transition → scenario-hotel-breakfast", "✓ evidence_sufficiency", "to speech", "raw: {")
	c.key(ctrl('r'))
	c.waitScreen("debug off", "Timers node 2 of 4", "Evidence 0 accepted")

	_, checks := any(c.x).(tui.InputSwitchChecker)
	c.key(ctrl('t'))
	if checks {
		s := c.screen()
		if strings.Contains(s, "switching input") {
			t.Errorf("a disabled switch key did something:\n%s", s)
		}
	} else {
		c.waitScreen("switch refused", "switching input failed: spoken answers need the microphone path")
	}
	c.key(tea.KeyPressMsg{Code: tea.KeyF1})
	s := c.waitScreen("help", "ctrl+r/f2", "debug view")
	if listed := strings.Contains(s, "typed/spoken input"); listed == checks {
		t.Errorf("help lists the switch key: %v (the exam can report whether it switches: %v):\n%s", listed, checks, s)
	}
	c.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	c.waitScreen("status", "input typed")
	c.key(ctrl('x'))
	c.waitScreen("end asks", "End the exam now?")
	c.key(letter('y'))
	c.waitScreen("ended", "· aborted ·")
	c.quit()

	_, evs := storedEvents(t, c.x, dir)
	obs := decodeAll[*runtime.ObservationPayload](t, evs, runtime.EventObservation)
	if len(obs) != 1 || obs[0].Latency.TotalMs <= 0 || len(obs[0].Decision.Trace) == 0 {
		t.Errorf("observations %+v: want one with a trace and a measured latency", obs)
	}
}

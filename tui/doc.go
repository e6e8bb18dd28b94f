// Package tui is examtui's terminal console: a Bubble Tea v2 program with one root model that
// owns layout, focus and routing, and small panes (Transcript, Evidence, Guardrails, Timers,
// Debug) that are built only from the runtime's event stream. The same panes therefore serve a
// local exam, a LiveKit session and a replay: the caller supplies a Backend for the controls and
// a channel of runtime.Event, and Run bridges the two.
//
// A live exam:
//
//	m, err := tui.New(tui.Info{Title: exam.Title, Examiner: "offline", Input: runtime.SourceTyped}, backend,
//		tui.WithSTTMinConfidence(exam.Policies.STTMinConfidence), tui.WithLogger(logger))
//	err = tui.Run(ctx, m, events)
//
// A replay reads its clocks from the events and has no exam controls; given the replay engine
// (a *sessions.Player), the console steers it with + / - (speed), space (pause) and n (step):
//
//	p, err := sessions.NewPlayer(store.Events(ctx, id, 1), sessions.WithSpeed(1))
//	m, err := tui.New(tui.Info{Title: title, SessionID: id, ReadOnly: true}, nil,
//		tui.WithReplay(p), tui.WithReplayTotal(sess.EventCount))
//	// p.Run(ctx, emit) feeds a channel that tui.Run reads; closing it ends the replay.
//
// The audio engine feeds the status line's meter through a channel given with
// WithAudioLevels; Run's one bridge goroutine forwards it with the events. A Backend that
// can take answers both typed and spoken implements InputSwitcher (and, when that depends on
// how it was started, InputSwitchChecker): the console's ctrl+t then switches, and the status
// line shows the mode; for any other Backend the key is disabled and hidden.
//
// Every string of an event is cleaned of control characters before a pane sees it: text from
// a candidate in a room or from an LLM must not reach the terminal as escape sequences.
package tui

// Package examtui is the root of examtui's module: a terminal console for interactive oral
// exams around a voice exam runtime. It holds no code, only this description of where code
// lives and the test that keeps it true (layout_test.go); docs/architecture.md has the same
// rules with every package.
//
// Layers, top to bottom; each may import the layers below it and nothing above:
//
//   - the binary: cmd/examtui (cobra commands and flags, at most 250 lines a file) and
//     cmd/examtui/internal/* (the wiring: app, worker, controlhttp, candidate, roomcheck),
//     which Go lets only cmd/examtui import;
//   - consoles: tui, tui/controlroom, tui/markconsole — never a transport or the wiring;
//   - transports: transport/livekit (+agent) and transport/voicepath — only audio, runtime
//     and spec;
//   - domain: runtime (+offline, llm, headless, usage), sessions, marking (+panel), monitor —
//     never a transport, a console or the wiring; runtime itself imports only spec (with
//     spec/lang) and internal/textsafe;
//   - foundations: spec (with its language packs, spec/lang) and audio, which import nothing
//     else of ours;
//   - support under internal/: leaves (textsafe, httpserve, httpbound, logredact, mdterm, visual), CLI helpers
//     (eventprint, operator, endpoint, config) and test harnesses (testutil, openaitest,
//     lktest, pgtest, browsertest, and every package named …test), which only tests and other
//     harnesses import.
//
// To add a package, put it in its layer, add it to docs/architecture.md's package table, and
// run go test . — the layout test names the rule a forbidden import breaks.
package examtui

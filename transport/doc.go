// Package transport holds every way a candidate reaches an exam besides typing into the
// console: the LiveKit room (transport/livekit, which the worker's bots use too), and the one
// voice path they and the local microphone share (transport/voicepath). It has no code of its
// own; this page is the contract.
//
// # What a transport brings
//
// A transport connects one candidate (and perhaps examiners) to one exam's controller. It
// brings four things and nothing else:
//
//   - an audio source: the candidate's speech as audio.Frame values (16 kHz mono, 20 ms),
//     placed by the sender's media time where it has one (RTP timestamps), so audio read late
//     is still where it was said, and with time in which no audio arrives counted as silence
//     on the wall clock (audio.LiveFramer), so a turn ends on time and not when more audio
//     happens to arrive;
//   - an audio sink: where the examiner's clips play (audio.Sink). Play returns when the clip
//     has played (for a network track: its last sample has been sent), or at once with
//     Interrupted set when Stop is called; Played counts what really left, never the time a
//     starved sender was behind (the heard text of a cut is built from it);
//   - presence: the candidate arriving, leaving and coming back
//     (runtime.Controller.CandidatePresence), and who may see which event
//     (runtime/audience.go);
//   - text in and out: typed answers (runtime.Controller.SubmitTurn with runtime.SourceTyped),
//     an examiner's commands (Admin, Control), and the exam's events going out.
//
// Everything between the audio and the controller is transport/voicepath's: VAD and the end of
// turn, recognition, the speech queue, each line in its persona's voice, barge-in and the
// other cuts. A transport does not decide any of it, so every transport behaves alike.
//
// # What a transport may import
//
// audio, runtime and spec (and transport/voicepath), the standard library and third-party
// packages; never sessions, marking, monitor, tui or the wiring under cmd/examtui. The
// wiring (cmd/examtui/internal/app) opens the exam and hands the transport its controller.
//
// # Adding a transport
//
// A new transport (a SIP call, a WebSocket client, ...) beside the microphone and LiveKit takes:
//
//  1. transport/NAME: an audio.Source and an audio.Sink over its connection (see
//     transport/livekit/room_audio.go: about 150 lines), and its text and presence messages
//     handed to the controller (see transport/livekit/bot.go);
//  2. a voicepath.Path over those: voicepath.New(ctrl, voicepath.Parts{Source, Recognizer,
//     Synthesizer, Sink}, voicepath.WithSource(...)), Start, and the exam's events delivered to
//     it (Path.Deliver, a runtime.Subscriber); a stop button is Path.Interrupt(voicepath.CauseStop);
//  3. a runtime.InputSource for its turns, if none fits (runtime/enum_*.go);
//  4. the wiring: a flag or command in cmd/examtui and a Join-like function in
//     cmd/examtui/internal/app that builds the recogniser and synthesizer (app.NewRecognizer,
//     app.NewSynthesizer) and subscribes the transport to the exam;
//  5. its tests (against the real service, or a stand-in speaking its real protocol) and a
//     page in docs/.
package transport

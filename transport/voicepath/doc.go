// Package voicepath is the one bridge between an audio source and sink and the exam's
// controller. Every spoken path uses it: the local microphone and speaker (examtui run --mic),
// the room bot (examtui run --room) and the worker's bots. A transport brings the audio (a
// source of the candidate's frames, a sink for the examiner's clips) and the text channel; this
// package does everything in between, the same way on every path:
//
//   - the candidate's turns: VAD and endpointing (audio.Voice), the end-of-turn decision
//     (endofturn.go), recognition, and each recognised turn handed to the controller with its
//     latencies (turns.go);
//   - the examiner's speech: the queue of spoken lines, each in the voice and speed of the
//     node's persona (queue.go), said sentence by sentence (speak.go);
//   - interruptions: the candidate barging in or asking to stop, an examiner's pause or
//     immediate instruction (bargein.go), and what the controller is told the candidate heard.
//
// What belongs here: anything about turn taking and speech that a second transport would
// otherwise have to repeat. What does not: devices, codecs and tracks (the transport), VAD,
// recognition and synthesis themselves (audio), and what the exam makes of a turn (runtime).
// It imports audio, runtime and spec only.
//
//	p, _ := voicepath.New(ctrl, voicepath.Parts{Source: src, Recognizer: rec, Synthesizer: tts, Sink: sink},
//		voicepath.WithSource(runtime.SourceRoom))
//	p.Start(ctx)
//	fanout.Subscribe(p) // spoken lines are said; pauses and immediate instructions cut them
//	defer p.Close()
package voicepath

// Package livekit is examtui's LiveKit room transport: the examiner bot joins a room, hears the
// candidate's microphone as 16 kHz mono PCM, speaks through its own audio track, and carries the
// exam's event stream and the candidate's and examiners' inputs on reliable data topics
// (docs/architecture.md, "The room wire").
//
// Trust comes from the server: a participant's role is the examtui.role attribute the server
// delivers from the token that admitted it, never a field inside a data packet. Assessment
// events (rubric, evidence, observations, guardrails, transition reasons) are addressed only to
// examiner identities; the candidate receives the filtered view of CandidateView.
package livekit

// Package worker runs exams as LiveKit agent jobs: it decides on the server's offers, turns a
// dispatch's metadata into an exam (a spec from the worker's spec directory, by name only),
// runs each job with cmd/examtui/internal/app's room wiring in isolation from the others, and takes over
// exams whose worker died (failover.go). cmd/examtui's `worker` command wires it to the agent
// protocol (transport/livekit/agent).
package worker

// Package agent is the worker side of LiveKit's agent protocol: a process registers with the
// server on the WebSocket /agent endpoint as a worker for one agent name, answers the server's
// availability requests, receives job assignments (a room and a join token), reports each job's
// status and its own load, and keeps the connection alive with pings. When the server is lost
// it reconnects and registers again; running jobs go on, since they live in their rooms, not on
// this connection.
//
// The messages are livekit/protocol's (livekit_agent.proto). The server side this talks to is
// livekit-server's pkg/agent and pkg/service/agentservice.go; behaviour worth knowing from it:
//   - the server picks a worker at random weighted by 1-load among workers whose status is
//     available, asks it (AvailabilityRequest) and tries the next one if it says no;
//   - an AvailabilityResponse carries no reason, so a job that cannot run is accepted and then
//     ended as failed with its reason (UpdateJobStatus.error), which the dispatch's job state
//     shows;
//   - the open-source server does not re-dispatch a job whose worker is lost: it forgets the
//     worker's jobs (the restart policy is LiveKit Cloud only).
package agent

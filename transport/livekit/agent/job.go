package agent

import (
	"context"

	lkproto "github.com/livekit/protocol/livekit"
)

// JobRequest is a job the server offers: one room for one agent name.
type JobRequest struct {
	ID         string
	DispatchID string
	AgentName  string
	Room       string
	RoomSID    string
	// Metadata is the dispatch's metadata, as the dispatcher wrote it (untrusted).
	Metadata string
}

func jobRequest(j *lkproto.Job) JobRequest {
	r := JobRequest{ID: j.GetId(), DispatchID: j.GetDispatchId(), AgentName: j.GetAgentName(), Metadata: j.GetMetadata()}
	if room := j.GetRoom(); room != nil {
		r.Room, r.RoomSID = room.GetName(), room.GetSid()
	}
	return r
}

// Answer is the worker's reply to a job offer.
type Answer struct {
	// Accept takes the job; false lets the server offer it to another worker.
	Accept bool
	// Identity, Name and Attributes are the participant the server's token admits.
	Identity   string
	Name       string
	Attributes map[string]string
}

// Assignment is a job the server gave this worker: the room, and a token for it.
type Assignment struct {
	JobRequest
	URL   string // the server to join (the worker's own server unless the server says otherwise)
	Token string // admits Answer.Identity to the room; a secret
}

// Handler decides on offers and runs jobs.
type Handler interface {
	// Offer answers an availability request. It is called only when the worker has room for
	// another job, and must answer quickly (the server waits 10 s).
	Offer(ctx context.Context, req JobRequest) Answer
	// Run runs one job until it is done or ctx ends (the server terminated the job, or the
	// worker stops its jobs). A nil error reports success, an error failure with its text.
	Run(ctx context.Context, a Assignment) error
}

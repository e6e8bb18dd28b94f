package livekit

import (
	lkproto "github.com/livekit/protocol/livekit"
)

// WithAgentDispatch puts an agent dispatch into the token's room configuration: when the
// holder's join creates the room, the server dispatches agentName to it with metadata (an
// examtui worker reads the exam from it). A room that exists already keeps its own dispatches.
func WithAgentDispatch(agentName, metadata string) TokenOption {
	return func(o *tokenOptions) {
		o.agents = append(o.agents, &lkproto.RoomAgentDispatch{AgentName: agentName, Metadata: metadata})
	}
}

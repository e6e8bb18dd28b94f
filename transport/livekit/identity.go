package livekit

import (
	"context"
	"fmt"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// IdentityInRoom asks the server (with the API key and secret) whether a participant with
// identity is in room now. A join that timed out uses it to say why in plain words: LiveKit
// gives an identity to one participant at a time, and two clients holding the same one take
// it from each other until one gives up with "could not connect after timeout".
func IdentityInRoom(ctx context.Context, serverURL, apiKey, apiSecret, room, identity string) (bool, error) {
	if apiKey == "" || apiSecret == "" {
		return false, fmt.Errorf("%w: the API key and secret are needed to ask the server", ErrInvalidConfig)
	}
	client := lksdk.NewRoomServiceClient(serverURL, apiKey, apiSecret)
	res, err := client.ListParticipants(ctx, &lkproto.ListParticipantsRequest{Room: room})
	if err != nil {
		return false, fmt.Errorf("list participants of %q: %w", room, err)
	}
	for _, p := range res.GetParticipants() {
		if p.GetIdentity() == identity {
			return true, nil
		}
	}
	return false, nil
}

package agent

import (
	"fmt"

	"github.com/gorilla/websocket"
	lkproto "github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// maxMessage bounds a server message; assignments (a job and a token) are a few kB.
const maxMessage = 1 << 20

// decodeServerMessage decodes one WebSocket message from the server: binary protobuf, or
// protojson text.
func decodeServerMessage(typ int, data []byte) (*lkproto.ServerMessage, error) {
	if len(data) > maxMessage {
		return nil, fmt.Errorf("server message of %d bytes exceeds %d", len(data), maxMessage)
	}
	msg := &lkproto.ServerMessage{}
	var err error
	switch typ {
	case websocket.BinaryMessage:
		err = proto.Unmarshal(data, msg)
	case websocket.TextMessage:
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, msg)
	default:
		return nil, fmt.Errorf("unexpected WebSocket message type %d", typ)
	}
	if err != nil {
		return nil, fmt.Errorf("decode server message: %w", err)
	}
	return msg, nil
}

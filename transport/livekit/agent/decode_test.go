package agent

import (
	"testing"

	"github.com/gorilla/websocket"
	lkproto "github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/proto"
)

// FuzzDecodeServerMessage: whatever the server (or something pretending to be it) sends,
// decoding returns a message or an error, never panics, and accessors on the result are safe.
func FuzzDecodeServerMessage(f *testing.F) {
	assign, _ := proto.Marshal(&lkproto.ServerMessage{Message: &lkproto.ServerMessage_Assignment{Assignment: &lkproto.JobAssignment{
		Job: &lkproto.Job{Id: "AJ_1", Room: &lkproto.Room{Name: "r"}, Metadata: `{"spec":"demo"}`}, Token: "t"}}})
	f.Add(websocket.BinaryMessage, assign)
	f.Add(websocket.TextMessage, []byte(`{"availability":{"job":{"id":"AJ_2","room":{"name":"x"}}}}`))
	f.Add(websocket.TextMessage, []byte(`{"pong":{"lastTimestamp":"12"}}`))
	f.Add(websocket.BinaryMessage, []byte{0xff, 0x01})
	f.Add(websocket.CloseMessage, []byte{})
	f.Fuzz(func(t *testing.T, typ int, data []byte) {
		msg, err := decodeServerMessage(typ, data)
		if err != nil {
			return
		}
		_ = jobRequest(msg.GetAssignment().GetJob())
		_ = jobRequest(msg.GetAvailability().GetJob())
		_ = msg.GetTermination().GetJobId()
	})
}

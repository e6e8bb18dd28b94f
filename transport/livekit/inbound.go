package livekit

import (
	"errors"
	"fmt"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/runtime"
)

// Rejection is an inbound message the room refused.
type Rejection struct {
	Topic  string
	Sender string // server-asserted identity; empty for a hidden or unknown sender
	Role   Role   // the sender's role as the server delivered it
	Err    error  // ErrWrongRole, ErrUnknownSender or ErrInvalidMessage, wrapped
	// ID is the message's id when it had a well-formed one: the refusal is its receipt.
	ID string
}

func (r Rejection) String() string {
	return fmt.Sprintf("rejected %s message from %s (role %s): %v", r.Topic, r.who(), r.Role, r.Err)
}

// who names the sender as the examiners read it.
func (r Rejection) who() string {
	if r.Sender == "" {
		return "an unidentified participant"
	}
	return r.Sender
}

// code is the system_error code examiners see for the rejection.
func (r Rejection) code() runtime.ErrorCode {
	switch {
	case errors.Is(r.Err, ErrWrongRole), errors.Is(r.Err, ErrUnknownSender):
		return runtime.CodeUnauthorizedMessage
	default:
		return runtime.CodeInvalidMessage
	}
}

// inbound is one accepted message or rejection, handled on the room's handler goroutine, or a
// packet whose sender the room does not know yet (unsure).
type inbound struct {
	text    *CandidateText
	command *ExaminerCommand
	reject  *Rejection
	unsure  *unsurePacket
	// presence is a candidate arriving or leaving, queued with the messages so that a typed
	// answer sent just before leaving is handled before the leave.
	presence *CandidatePresence
}

// unsurePacket is a packet from a participant the bot has not been told about yet: a candidate
// who has just (re)joined can send before the server's participant update reaches the bot. It
// is classified once the sender's role is known, or rejected after unknownSenderWait.
type unsurePacket struct {
	topic    string
	payload  []byte
	identity string
	at       time.Time
}

// unknownSenderWait bounds how long a packet waits for its sender's participant info.
const unknownSenderWait = 3 * time.Second

// senderRole returns the role of a packet's sender as the server vouches for it (see
// VouchedRole and RoleBook): the attribute set in the token that admitted it, fixed when the
// participant was first seen. The packet's content plays no part. A sender the room does not
// know (a hidden participant, whose identity the server strips, or one whose info has not
// arrived) has no role.
// known is false when the room has no info about the sender yet.
func senderRole(lk *lksdk.Room, book *RoleBook, params lksdk.DataReceiveParams) (identity string, role Role, known bool) {
	rp := params.Sender
	if rp == nil && params.SenderIdentity != "" && lk != nil {
		rp = lk.GetParticipantByIdentity(params.SenderIdentity)
	}
	if rp == nil {
		return params.SenderIdentity, RoleUnknown, false
	}
	return rp.Identity(), book.Role(rp), true
}

// classify turns one data packet into what the bot does with it; ok is false for packets on
// topics the bot does not read.
func classify(topic string, payload []byte, sender string, role Role, at time.Time) (inbound, bool) {
	reject := func(err error) (inbound, bool) {
		var id string
		if m, werr := decodeWire(payload); werr == nil {
			id = m.ID
		}
		return inbound{reject: &Rejection{Topic: topic, Sender: sender, Role: role, Err: err, ID: id}}, true
	}
	switch topic {
	case TopicCandidateInput:
		if role != RoleCandidate {
			return reject(rejectRole(sender, role, RoleCandidate))
		}
		msg, err := ParseCandidateInput(payload)
		if err != nil {
			return reject(err)
		}
		msg.Sender, msg.Received = sender, at
		return inbound{text: &msg}, true
	case TopicExaminerCommands:
		if role != RoleExaminer {
			return reject(rejectRole(sender, role, RoleExaminer))
		}
		cmd, err := ParseExaminerCommand(payload)
		if err != nil {
			return reject(err)
		}
		cmd.Sender, cmd.Received = sender, at
		return inbound{command: &cmd}, true
	}
	return inbound{}, false
}

func rejectRole(sender string, role, want Role) error {
	if role == RoleUnknown {
		return fmt.Errorf("%w: %q has no %s attribute the server vouches for", ErrUnknownSender, sender, RoleAttribute)
	}
	return fmt.Errorf("%w: %q is a %s, only a %s may send this", ErrWrongRole, sender, role, want)
}

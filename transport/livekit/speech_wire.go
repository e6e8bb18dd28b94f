package livekit

import (
	"encoding/json"
	"fmt"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/transport/voicepath"
)

// TopicSpeech carries the bot's word on its own voice, bot → room: one message when an
// examiner's line is over (the track has sent its last sample, or the line was cut, dropped
// or could not be said). The spoken event on TopicEvents marks a line's start; this marks its
// end. It is not an exam event (no seq of its own, not stored, not replayed): what the
// candidate heard of a cut line is already in the session, as the barge-in's heard text.
const TopicSpeech = "exam-examiner-speech"

// msgLineEnd is the one message type on TopicSpeech.
const msgLineEnd = "line_end"

// LineEnd is a line_end message as a client receives it: the voice path's LineEnd and when the
// packet arrived.
type LineEnd struct {
	voicepath.LineEnd
	Received time.Time
}

// botHeader starts every message the bot sends beside events (line_end, receipts).
type botHeader struct {
	SchemaVersion int    `json:"schemaVersion"`
	Type          string `json:"type"`
}

func (h *botHeader) header() *botHeader { return h }

// decodeBotPacket reads a packet of a bot → room topic into m and checks what every such
// message shares: the packet's size bound, a schema version that is one (any, ≥ 0: readers are
// forward compatible) and the topic's one message type, want.
func decodeBotPacket(data []byte, m interface{ header() *botHeader }, topic, want string) error {
	if len(data) > maxInboundPacket {
		return fmt.Errorf("%w: %d bytes (limit %d)", ErrInvalidMessage, len(data), maxInboundPacket)
	}
	if err := json.Unmarshal(data, m); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidMessage, err)
	}
	switch h := m.header(); {
	case h.SchemaVersion < 0:
		return fmt.Errorf("%w: schemaVersion %d", ErrInvalidMessage, h.SchemaVersion)
	case h.Type != want:
		return fmt.Errorf("%w: type %q on %s (want %s)", ErrInvalidMessage, h.Type, topic, want)
	}
	return nil
}

// lineEndWire is a line_end message on the wire (docs/architecture.md, "The room wire").
type lineEndWire struct {
	botHeader
	Seq      int64   `json:"seq"`
	Lines    int     `json:"lines"`
	PlayedMs float64 `json:"playedMs"`
	TotalMs  float64 `json:"totalMs"`
	Ending   string  `json:"ending"`
	Idle     bool    `json:"idle"`
	Through  int64   `json:"through,omitempty"`
}

func durMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// EncodeLineEnd builds a TopicSpeech packet for the end of a line.
func EncodeLineEnd(le voicepath.LineEnd) ([]byte, error) {
	return json.Marshal(lineEndWire{botHeader: botHeader{WireVersion, msgLineEnd}, Seq: le.Seq, Lines: le.Lines,
		PlayedMs: durMs(le.Played), TotalMs: durMs(le.Total), Ending: le.Ending.String(), Idle: le.Idle, Through: le.Through})
}

// ParseLineEnd reads a TopicSpeech packet. Like every reader of the wire it accepts a newer
// schema version and ignores fields it does not know; an ending it does not know reads as
// voicepath.LineUnknown.
func ParseLineEnd(data []byte) (voicepath.LineEnd, error) {
	var m lineEndWire
	if err := decodeBotPacket(data, &m, TopicSpeech, msgLineEnd); err != nil {
		return voicepath.LineEnd{}, err
	}
	switch {
	case m.Seq < 0, m.Through < 0, m.Lines < 0, !(m.PlayedMs >= 0), !(m.TotalMs >= 0), m.PlayedMs > m.TotalMs+1:
		return voicepath.LineEnd{}, fmt.Errorf("%w: line_end out of range (seq %d, through %d, lines %d, played %v of %v ms)",
			ErrInvalidMessage, m.Seq, m.Through, m.Lines, m.PlayedMs, m.TotalMs)
	}
	return voicepath.LineEnd{Seq: m.Seq, Lines: m.Lines, Played: time.Duration(m.PlayedMs * float64(time.Millisecond)),
		Total: time.Duration(m.TotalMs * float64(time.Millisecond)), Ending: voicepath.ParseLineEnding(m.Ending),
		Idle: m.Idle, Through: m.Through}, nil
}

// SendLineEnd queues a line_end message for everyone the bot sends events to (the candidate
// and the examiners), after the events already queued: a listener reads it after the line's
// spoken events. It never blocks; a message that cannot be encoded is logged and dropped.
func (r *Room) SendLineEnd(le voicepath.LineEnd) {
	data, err := EncodeLineEnd(le)
	if err != nil {
		r.log.Error("encode line_end", "err", err)
		return
	}
	if r.ctx.Err() != nil {
		return
	}
	r.out.push(outItem{speech: data})
}

// sendSpeech sends a TopicSpeech packet to the candidate and the examiners.
func (r *Room) sendSpeech(lk *lksdk.Room, data []byte) error {
	examiners, candidates := r.recipients(lk, "")
	to := identities(append(examiners, candidates...))
	if len(to) == 0 {
		return nil
	}
	if err := lk.LocalParticipant.PublishDataPacket(lksdk.UserData(data),
		lksdk.WithDataPublishTopic(TopicSpeech),
		lksdk.WithDataPublishReliable(true),
		lksdk.WithDataPublishDestination(to)); err != nil {
		return fmt.Errorf("%w: %w", ErrNotConnected, err)
	}
	r.stats.packetsSent.Add(1)
	return nil
}

// onSpeech delivers a TopicSpeech packet from the bot; a sender who is not the bot is ignored
// (the events topic already warns of one), and so is a malformed packet.
func (c *Client) onSpeech(rp *lksdk.RemoteParticipant, payload []byte) {
	if !c.isBot(rp) {
		return
	}
	le, err := ParseLineEnd(payload)
	if err != nil {
		c.log.Warn("malformed line_end dropped", "err", err)
		return
	}
	select {
	case c.lineEnds <- LineEnd{LineEnd: le, Received: time.Now()}:
	default:
		c.log.Warn("line_end reader is behind; message dropped", "seq", le.Seq)
	}
}

// LineEnds delivers the bot's line_end messages (TopicSpeech): when each examiner line was
// over, how much of it was played and whether it was whole. A bot that does not send them
// (another agent framework) leaves the channel empty; a listener then falls back on silence.
func (c *Client) LineEnds() <-chan LineEnd { return c.lineEnds }

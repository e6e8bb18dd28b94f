package livekit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/examtui/examtui/runtime"
)

// Client is a candidate or an examiner in an exam room: it receives the events the bot
// addresses to it, sends typed answers or examiner commands to the bot, and (as a candidate)
// can speak through a microphone track and hear the bot. `examtui watch` is an examiner Client;
// tests use Clients as candidates.
type Client struct {
	log    *slog.Logger
	conn   *connector
	events chan runtime.Event
	audio  chan AudioFrame
	// lineEnds are the bot's line_end messages (speech_wire.go).
	lineEnds chan LineEnd
	voice    *Voice
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	seen    map[int64]bool
	remotes decoders // of the bot's voice
	once    sync.Once
	roles   *RoleBook
	bot     string          // the one bot the server vouched for, pinned when first seen
	agents  bool            // decode an agent participant's audio too (WithAgentAudio)
	changed chan struct{}   // closed and replaced when participants arrive or change
	warned  map[string]bool // security warnings already delivered, by code and sender
	session string          // the session of the bot's latest event, for local warnings

	dataMu sync.Mutex   // orders event packets, held ones included
	held   []heldPacket // event packets from senders not announced yet (see holdLocked)

	readyGate func()      // see clientOptions
	recvOpen  func() bool // see clientOptions

	receipts    receipts           // messages waiting for the bot's receipt (client_receipts.go)
	readyStop   context.CancelFunc // ends the "ready" still waiting for its receipt; under mu
	lose        *lossModel         // see clientOptions
	receiptSeen func(Receipt)      // see clientOptions

	eventsDropped atomic.Int64
	audioDropped  atomic.Int64
}

// ClientOption configures Dial.
type ClientOption func(*clientOptions)

type clientOptions struct {
	log         *slog.Logger
	microphone  bool
	micRate     int
	eventBuffer int
	audioBuffer int
	onState     func(ConnState)
	connectOpts []lksdk.ConnectOption
	agentAudio  bool
	readyGate   func()        // tests: runs before each "ready" is sent (export_test.go)
	recvOpen    func() bool   // tests: event packets are lost while it is false (export_test.go)
	lose        *lossModel    // tests: messages and receipts lost on the way (export_test.go)
	receiptSeen func(Receipt) // tests: told of each receipt from the bot (export_test.go)
}

// WithClientLogger sets the client's logger (default: discard).
func WithClientLogger(l *slog.Logger) ClientOption {
	return func(o *clientOptions) {
		if l != nil {
			o.log = l
		}
	}
}

// WithMicrophone publishes a microphone track fed with PCM at hz through Client.Voice.
func WithMicrophone(hz int) ClientOption {
	return func(o *clientOptions) { o.microphone, o.micRate = true, hz }
}

// WithEventBuffer sets how many received events may wait for the reader.
func WithEventBuffer(n int) ClientOption { return func(o *clientOptions) { o.eventBuffer = n } }

// WithClientStateChanges sets a function told of every connection state change.
func WithClientStateChanges(fn func(ConnState)) ClientOption {
	return func(o *clientOptions) { o.onState = fn }
}

// WithAgentAudio also decodes into Audio the speech of a LiveKit Agents participant (kind
// agent, which only the server gives, to an agent worker it dispatched): the reply-latency
// benchmark measures a LiveKit Agents voice agent with the same client as the exam bot. Its
// events are never believed, as from anyone who is not the bot.
func WithAgentAudio() ClientOption { return func(o *clientOptions) { o.agentAudio = true } }

// WithClientConnectOptions passes options to the SDK's join.
func WithClientConnectOptions(opts ...lksdk.ConnectOption) ClientOption {
	return func(o *clientOptions) { o.connectOpts = append(o.connectOpts, opts...) }
}

// Dial joins a room with a candidate or examiner token and stays until Close, rejoining after
// failures like the bot does.
func Dial(ctx context.Context, serverURL, token string, opts ...ClientOption) (*Client, error) {
	cfg := Config{URL: serverURL, Token: token}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	o := clientOptions{log: slog.New(slog.DiscardHandler), eventBuffer: 4096, audioBuffer: 500, micRate: InputSampleRate}
	for _, opt := range opts {
		opt(&o)
	}
	if o.eventBuffer < 1 || o.audioBuffer < 1 {
		return nil, fmt.Errorf("%w: buffers must hold at least one item", ErrInvalidConfig)
	}
	if o.microphone && (o.micRate < 8000 || o.micRate > 48000) {
		return nil, fmt.Errorf("%w: microphone sample rate %d Hz", ErrInvalidConfig, o.micRate)
	}
	defaultSDKLogger(o.log)
	runCtx, cancel := context.WithCancel(context.Background())
	c := &Client{
		log:      o.log.With("component", "livekit-client"),
		events:   make(chan runtime.Event, o.eventBuffer),
		lineEnds: make(chan LineEnd, o.eventBuffer),
		audio:    make(chan AudioFrame, o.audioBuffer),
		ctx:      runCtx,
		cancel:   cancel,
		seen:     make(map[int64]bool),
		warned:   make(map[string]bool),
		changed:  make(chan struct{}),
		agents:   o.agentAudio,
	}
	c.readyGate, c.recvOpen, c.lose, c.receiptSeen = o.readyGate, o.recvOpen, o.lose, o.receiptSeen
	c.roles = NewRoleBook(func(u UntrustedParticipant) {
		c.log.Warn("participant refused a role", "identity", u.Identity, "claimed", u.Claimed, "verdict", u.Verdict.String())
		c.securityWarning(runtime.CodeUntrustedParticipant, u.Identity, u.String())
	})
	if o.microphone {
		c.voice = newVoice(o.micRate, "microphone", c.log)
	}
	c.conn = &connector{
		url:       serverURL,
		token:     cfg.tokenSource(RoleUnknown),
		log:       c.log,
		opts:      o.connectOpts,
		callbacks: c.callbacks,
		setup: func(_ context.Context, lk *lksdk.Room, _ uint64) error {
			for _, rp := range lk.GetRemoteParticipants() {
				c.isBot(rp) // fix roles (and the bot) at first sight
			}
			if c.voice != nil {
				if err := c.voice.publish(lk); err != nil {
					return err
				}
			}
			c.sayReady(lk) // a new connection (the first join or a rejoin)
			return nil
		},
		onState:    o.onState,
		minBackoff: 250 * time.Millisecond,
		maxBackoff: 5 * time.Second,
	}
	if err := c.conn.open(ctx); err != nil {
		cancel()
		return nil, err
	}
	c.wg.Add(1)
	go func() { defer c.wg.Done(); c.conn.run(runCtx) }()
	return c, nil
}

func (c *Client) callbacks(uint64) *lksdk.RoomCallback {
	return &lksdk.RoomCallback{
		OnParticipantConnected: func(rp *lksdk.RemoteParticipant) {
			if c.isBot(rp) {
				c.sayReady(c.conn.room()) // the bot arrived after us
			}
			c.dataMu.Lock()
			c.releaseHeldLocked(false)
			c.dataMu.Unlock()
			c.notifyChanged()
		},
		OnReconnected: func() { c.sayReady(c.conn.room()) }, // the SDK resumed the connection
		ParticipantCallback: lksdk.ParticipantCallback{
			OnAttributesChanged: func(map[string]string, lksdk.Participant) { c.notifyChanged() },
			OnDataPacket: func(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
				c.onData(data, params)
			},
			OnTrackSubscribed: func(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
				c.attachAudio(track, pub, rp)
			},
			OnTrackUnsubscribed: func(_ *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, _ *lksdk.RemoteParticipant) {
				c.remotes.stop(pub.SID())
			},
		},
	}
}

// onData accepts events only from the one bot the server vouches for (see RoleBook and isBot):
// anyone could publish on the topic. Anything else becomes a security warning, never exam data.
func (c *Client) onData(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
	u, ok := data.(*lksdk.UserDataPacket)
	if ok && u.Topic == TopicSpeech {
		c.onSpeech(c.senderOf(params), u.Payload)
		return
	}
	if ok && u.Topic == TopicReceipts {
		c.onReceipt(c.senderOf(params), u.Payload)
		return
	}
	if !ok || u.Topic != TopicEvents || (c.recvOpen != nil && !c.recvOpen()) {
		return
	}
	c.dataMu.Lock()
	defer c.dataMu.Unlock()
	rp := params.Sender
	if rp == nil && params.SenderIdentity != "" {
		rp = c.participant(params.SenderIdentity)
		if rp == nil && c.holdLocked(params.SenderIdentity, u.Payload) {
			return
		}
	}
	c.releaseHeldLocked(false)
	c.handleEvent(rp, params.SenderIdentity, u.Payload)
}

// handleEvent delivers one event packet from rp (nil: a sender the server never announced).
func (c *Client) handleEvent(rp *lksdk.RemoteParticipant, who string, payload []byte) {
	if !c.isBot(rp) {
		c.log.Warn("event from a participant who is not the exam bot dropped", "from", who)
		c.securityWarning(runtime.CodeForgedEvent, who, fmt.Sprintf(
			"events from %q were dropped: it is not the exam bot the server vouches for", who))
		return
	}
	ev, _, err := DecodeRoomEvent(payload)
	if err != nil {
		c.log.Warn("malformed event dropped", "err", err)
		return
	}
	switch {
	case ev.Seq < 0, ev.Seq == 0 && ev.Event != runtime.EventSystemError:
		// Only out-of-band reports go without a seq; anything else claims to be exam data
		// outside the journal.
		c.log.Warn("event outside the journal dropped", "event", ev.Event.String(), "seq", ev.Seq)
		c.securityWarning(runtime.CodeForgedEvent, "seq", fmt.Sprintf("an %s event without a journal seq (%d) was dropped", ev.Event, ev.Seq))
		return
	case ev.Seq > 0:
		c.mu.Lock()
		dup := c.seen[ev.Seq]
		c.seen[ev.Seq] = true
		c.session = ev.SessionID
		c.mu.Unlock()
		if dup {
			return
		}
	}
	c.deliver(ev)
}

// isBot reports whether rp is the exam bot: the server vouches for its bot role (RoleBook) and it
// is the first such participant this client saw. A second participant with a bot token (another
// exam's bot let into the room, a stolen token) is not believed.
func (c *Client) isBot(rp *lksdk.RemoteParticipant) bool {
	if rp == nil || c.roles.Role(rp) != RoleBot {
		return false
	}
	c.mu.Lock()
	if c.bot == "" {
		c.bot = rp.Identity()
		c.log.Info("exam bot", "identity", c.bot)
	}
	pinned := c.bot
	c.mu.Unlock()
	if rp.Identity() != pinned {
		c.securityWarning(runtime.CodeForgedEvent, rp.Identity(), fmt.Sprintf(
			"a second exam bot %q is in the room; only %q is believed", rp.Identity(), pinned))
		return false
	}
	return true
}

// securityWarning delivers, once per code and subject, a system_error made by this client (seq
// 0, like the bot's out-of-band reports) so that the examiner sees it.
func (c *Client) securityWarning(code runtime.ErrorCode, subject, message string) {
	c.mu.Lock()
	key := code.String() + "\x00" + subject
	first := !c.warned[key]
	c.warned[key] = true
	session := c.session
	c.mu.Unlock()
	if !first {
		return
	}
	ev, err := runtime.NewEvent(session, 0, time.Now(), &runtime.SystemErrorPayload{Code: code, Message: message})
	if err != nil {
		c.log.Error("encode security warning", "err", err)
		return
	}
	c.deliver(ev)
}

func (c *Client) deliver(ev runtime.Event) {
	select {
	case c.events <- ev:
	default:
		c.eventsDropped.Add(1)
		c.log.Warn("event reader is behind; event dropped", "seq", ev.Seq)
	}
}

func (c *Client) attachAudio(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	agent := c.agents && rp != nil && rp.Kind() == lksdk.ParticipantAgent
	if track.Kind() != webrtc.RTPCodecTypeAudio || !(agent || c.isBot(rp)) {
		return
	}
	sink := &frameSink{from: rp.Identity(), rate: InputSampleRate, out: c.audio, dropped: &c.audioDropped, log: c.log}
	if err := c.remotes.decode(track, pub.SID(), sink, c.log); err != nil {
		c.log.Error("decode bot audio", "err", err)
	}
}

// Events delivers the events the bot sends this participant, each seq once (replays after a
// rejoin are dropped), so order follows arrival: an event missed during an outage arrives
// after later ones. Out-of-band reports (seq 0) are always delivered.
func (c *Client) Events() <-chan runtime.Event { return c.events }

// Audio delivers the bot's speech, decoded to 16 kHz mono.
func (c *Client) Audio() <-chan AudioFrame { return c.audio }

// Voice is the microphone track (nil without WithMicrophone).
func (c *Client) Voice() *Voice { return c.voice }

// State reports the connection state.
func (c *Client) State() ConnState { return c.conn.State() }

// Identity is this participant's identity as the server knows it.
func (c *Client) Identity() string {
	if lk := c.conn.room(); lk != nil {
		return lk.LocalParticipant.Identity()
	}
	return ""
}

// SendCandidateText sends a typed answer to the bot and returns once the bot has it (its
// receipt), sending it again until then; the exam takes it once (client_receipts.go). Without
// a receipt before ctx ends it returns ErrNoReceipt.
func (c *Client) SendCandidateText(ctx context.Context, text string, confidence float64) error {
	return c.sendConfirmed(ctx, TopicCandidateInput, msgCandidateText, func(id string) ([]byte, error) {
		return encodeCandidateText(id, text, confidence)
	})
}

// SendCandidateStop asks the bot to stop the examiner's current line (the native interrupt).
func (c *Client) SendCandidateStop(ctx context.Context) error {
	data, err := EncodeCandidateStop()
	if err != nil {
		return err
	}
	return c.sendToBot(ctx, TopicCandidateInput, data)
}

// SendAdmin sends an admin instruction to the bot and returns once the bot has it, as
// SendCandidateText does.
func (c *Client) SendAdmin(ctx context.Context, mode runtime.AdminMode, text string) error {
	return c.sendConfirmed(ctx, TopicExaminerCommands, msgAdminInstruction, func(id string) ([]byte, error) {
		return encodeAdminInstruction(id, mode, text)
	})
}

// SendControl sends a control action to the bot and returns once the bot has it, as
// SendCandidateText does.
func (c *Client) SendControl(ctx context.Context, action runtime.ControlAction) error {
	return c.sendConfirmed(ctx, TopicExaminerCommands, msgControl, func(id string) ([]byte, error) {
		return encodeControl(id, action)
	})
}

// SendRaw publishes any payload on any topic to the bot; tests use it to send what a
// misbehaving client would.
func (c *Client) SendRaw(ctx context.Context, topic string, payload []byte) error {
	return c.sendToBot(ctx, topic, payload)
}

// sayReady tells the bot, without blocking the caller, that this client can receive: the bot
// answers with the client's share of every event again (outbox.go, replayAsked), which is how
// the events it sent before this connection's data channel was open reach it. A candidate says
// it on the candidate-input topic, an examiner on the examiner-commands topic; it is said on
// every new connection, when the bot arrives and after the SDK resumes a connection, as the
// candidate page does. Events keeps each seq once, so the replay never shows twice.
func (c *Client) sayReady(lk *lksdk.Room) {
	if lk == nil || c.ctx.Err() != nil {
		return
	}
	role, _ := VouchedRole(lk.LocalParticipant.Attributes(), lk.LocalParticipant.Permissions())
	topic := TopicCandidateInput
	switch role {
	case RoleCandidate:
	case RoleExaminer:
		topic = TopicExaminerCommands
	default:
		return
	}
	// One "ready" at a time: a newer one (a new connection, the bot's arrival) replaces the
	// one still waiting for its receipt, which is said again until the bot answers it, as a
	// typed answer is (its replay may have been lost with it).
	ctx, stop := context.WithTimeout(c.ctx, readyFor)
	c.mu.Lock()
	if c.readyStop != nil {
		c.readyStop()
	}
	c.readyStop = stop
	c.mu.Unlock()
	go func() {
		defer stop()
		if c.readyGate != nil {
			c.readyGate()
		}
		err := c.sendConfirmed(ctx, topic, msgReady, func(id string) ([]byte, error) {
			return encodeInput(wireMessage{Type: msgReady, ID: id})
		})
		if err != nil && ctx.Err() == nil {
			c.log.Info("ready not confirmed", "err", err) // the next connection or the bot's arrival says it again
		}
	}()
}

// readyFor bounds how long a "ready" is said again without a receipt; a new connection or the
// bot's arrival starts another.
const readyFor = 30 * time.Second

// sendToBot addresses the bot only, so that examiners' commands never reach the candidate and
// the candidate's answers reach examiners only through the bot's events.
func (c *Client) sendToBot(ctx context.Context, topic string, payload []byte) error {
	lk, err := c.conn.waitConnected(ctx)
	if err != nil {
		return err
	}
	return c.publishToBot(lk, topic, payload)
}

// publishToBot sends payload on topic to the bot of connection lk.
func (c *Client) publishToBot(lk *lksdk.Room, topic string, payload []byte) error {
	var bots []string
	for _, rp := range lk.GetRemoteParticipants() {
		if c.isBot(rp) {
			bots = append(bots, rp.Identity())
		}
	}
	if len(bots) == 0 {
		return fmt.Errorf("%w: no examiner bot in the room", ErrNotConnected)
	}
	err := lk.LocalParticipant.PublishDataPacket(lksdk.UserData(payload),
		lksdk.WithDataPublishTopic(topic), lksdk.WithDataPublishReliable(true), lksdk.WithDataPublishDestination(bots))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotConnected, err)
	}
	return nil
}

// notifyChanged wakes WaitBot.
func (c *Client) notifyChanged() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// WaitBot blocks until the examiner bot is in the room: it waits for the connection, then for
// participants to arrive or change, until ctx ends.
func (c *Client) WaitBot(ctx context.Context) error {
	for {
		c.mu.Lock()
		changed := c.changed // taken before the check, so no arrival is missed
		c.mu.Unlock()
		lk, err := c.conn.waitConnected(ctx)
		if errors.Is(err, ErrClosed) {
			return ErrClosed
		}
		if err != nil {
			return fmt.Errorf("wait for the bot: %w", ctx.Err())
		}
		for _, rp := range lk.GetRemoteParticipants() {
			if c.isBot(rp) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the bot: %w", ctx.Err())
		case <-c.ctx.Done():
			return ErrClosed
		case <-changed:
		}
	}
}

// Close leaves the room and stops the client's goroutines.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.cancel()
		c.conn.close()
		if c.voice != nil {
			c.voice.close()
		}
		c.wg.Wait()
		c.remotes.stopAll()
	})
	return nil
}

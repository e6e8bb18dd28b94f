package livekit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/examtui/examtui/runtime"
)

// Room is the examiner bot in a LiveKit room. It implements runtime.Sink and
// runtime.Subscriber, so the controller's event stream can be pointed at it.
type Room struct {
	o      options
	log    *slog.Logger
	conn   *connector
	voice  *Voice
	audio  chan AudioFrame
	out    *queue[outItem]
	in     *queue[inbound]
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	handlers    Handlers
	handlersSet chan struct{}   // closed once handlers are known
	history     []runtime.Event // when no replay source was given
	lastSession string
	sentAt      []sentMark           // recent sends, for the resend window
	askedAt     map[string]time.Time // when each candidate last asked for a replay (replayAsked)
	readyGen    uint64               // the connection whose participants have been read
	remotes     decoders             // of the candidates' microphones
	changed     chan struct{}        // closed and replaced when participants change
	closeOnce   sync.Once

	roles  *RoleBook
	server *serverView // participants learnt of from the server API (serverview.go)
	// presence follows the vouched candidates in the room (presence.go).
	presence presenceTracker

	stats roomStats
	sent  sentLedger // which seqs each connection was sent (sent_ledger.go)
	// listeners are the identities last allowed to subscribe to the bot's tracks (subscribers.go).
	listeners     []string
	listenersSent bool

	rejects *rejectLimiter // the rate of rejection reports per sender (reject_limit.go)
	taken   takenIDs       // the message ids each sender has had taken (receipt.go)
}

type sentMark struct {
	seq int64
	at  time.Time
}

type roomStats struct {
	eventsSent   atomic.Int64
	packetsSent  atomic.Int64
	replays      atomic.Int64
	rejected     atomic.Int64
	oversize     atomic.Int64
	audioDropped atomic.Int64
	duplicates   atomic.Int64
}

// Stats counts what the room did.
type Stats struct {
	EventsSent   int64 // events handed to the data channel (each to one or two audiences)
	PacketsSent  int64
	Replays      int64 // replays started for a joining participant or after a resume
	Rejected     int64 // inbound messages refused
	Oversize     int64 // events too large for a data packet
	AudioDropped int64 // decoded candidate frames the consumer was too slow for
	// Duplicates counts messages sent again under an id already taken (receipt.go): answered,
	// not handed to the exam a second time.
	Duplicates int64
	// ServerArrivals counts participants the bot learnt of from the server API before the
	// server announced them (serverview.go).
	ServerArrivals int64
}

// Join connects the examiner bot to a room and keeps it there until Close: it rejoins after
// network failures and server restarts, subscribes to the candidate's microphone whenever a
// candidate is present, and publishes its voice. The candidate need not be there yet (see
// WaitCandidate).
func Join(ctx context.Context, cfg Config, opts ...Option) (*Room, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Token != "" {
		// A token for another room would join it while every message named this one.
		if _, err := CheckToken(cfg.Token, cfg.Room, RoleBot, RoleUnknown); err != nil {
			return nil, err
		}
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	defaultSDKLogger(o.log)
	runCtx, cancel := context.WithCancel(context.Background())
	r := &Room{
		o:       o,
		log:     o.log.With("component", "livekit-bot"),
		audio:   make(chan AudioFrame, o.audioBuffer),
		out:     newQueue[outItem](),
		in:      newQueue[inbound](),
		ctx:     runCtx,
		cancel:  cancel,
		changed: make(chan struct{}),

		handlers:    Handlers{CandidateText: o.onText, ExaminerCommand: o.onCommand, Rejection: o.onReject},
		handlersSet: make(chan struct{}),
	}
	if o.onText != nil || o.onCommand != nil || o.onReject != nil {
		close(r.handlersSet)
	}
	r.roles = NewRoleBook(r.untrusted)
	r.rejects = newRejectLimiter(rejectBurst, rejectWindow, r.reportHeldRejections)
	r.presence.init()
	r.server = newServerView(cfg)
	r.voice = newVoice(o.speechRate, "examiner-voice", r.log)
	r.voice.silent = o.silent
	r.conn = &connector{
		url:        cfg.URL,
		token:      cfg.tokenSource(RoleBot),
		log:        r.log,
		opts:       append([]lksdk.ConnectOption{lksdk.WithAutoSubscribe(false)}, o.connectOpts...),
		callbacks:  r.callbacks,
		setup:      r.setup,
		onState:    o.onState,
		minBackoff: o.minBackoff,
		maxBackoff: o.maxBackoff,
	}
	if err := r.conn.open(ctx); err != nil {
		cancel()
		return nil, err
	}
	r.wg.Add(4)
	go func() { defer r.wg.Done(); r.conn.run(runCtx) }()
	go func() { defer r.wg.Done(); r.sendLoop(runCtx) }()
	go func() { defer r.wg.Done(); r.handleLoop(runCtx) }()
	go func() { defer r.wg.Done(); r.watchPresence(runCtx) }()
	return r, nil
}

// setup runs after every successful join: check our own role, publish the voice, and treat
// everyone already in the room as just arrived.
func (r *Room) setup(_ context.Context, lk *lksdk.Room, gen uint64) error {
	if role, _ := VouchedRole(lk.LocalParticipant.Attributes(), lk.LocalParticipant.Permissions()); role != RoleBot {
		return fmt.Errorf("%w: the bot's token carries role %s, want bot", ErrInvalidConfig, role)
	}
	r.mu.Lock()
	r.listenersSent = false // a new connection: the server knows nothing yet
	r.mu.Unlock()
	r.allowListeners(lk)
	if err := r.voice.publish(lk); err != nil {
		return err
	}
	r.mu.Lock()
	r.readyGen = gen
	r.mu.Unlock()
	for _, rp := range lk.GetRemoteParticipants() {
		r.arrived(lk, rp)
	}
	return nil
}

func (r *Room) ready(gen uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readyGen == gen && gen == r.conn.currentGen()
}

func (r *Room) callbacks(gen uint64) *lksdk.RoomCallback {
	return &lksdk.RoomCallback{
		OnParticipantConnected: func(rp *lksdk.RemoteParticipant) {
			if lk := r.conn.room(); lk != nil && r.ready(gen) {
				r.arrived(lk, rp)
			}
		},
		OnParticipantDisconnected: func(rp *lksdk.RemoteParticipant) {
			r.forgetEarly(rp.Identity())
			r.sent.forget(rp.SID())
			r.log.Info("participant left", "identity", rp.Identity(), "role", r.roles.Role(rp).String())
			r.presence.left(rp, r.conn.State() == StateConnected && r.roles.Role(rp) == RoleCandidate)
			r.allowListeners(r.conn.room())
			r.notifyChanged()
		},
		OnLocalTrackSubscribed: func(*lksdk.LocalTrackPublication, *lksdk.LocalParticipant) {
			r.voice.markHeard()
		},
		OnReconnecting: func() {
			r.presence.interrupted()
		},
		OnReconnected: func() {
			r.presence.interrupted()
			r.resendRecent()
		},
		ParticipantCallback: lksdk.ParticipantCallback{
			OnTrackPublished: func(pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
				if r.ready(gen) {
					r.maybeSubscribe(pub, rp)
				}
			},
			OnTrackSubscribed: func(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
				r.attachAudio(track, pub, rp)
			},
			OnTrackUnsubscribed: func(_ *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, _ *lksdk.RemoteParticipant) {
				r.remotes.stop(pub.SID())
			},
			OnDataPacket: func(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
				r.onData(data, params)
			},
			OnAttributesChanged: func(changed map[string]string, p lksdk.Participant) {
				r.attributesChanged(changed, p)
			},
		},
	}
}

// arrived handles a participant who joined, or who was there when the bot (re)joined: the
// candidate's microphone is subscribed, and the participant's share of the event history is
// sent again so that a rejoining candidate or examiner misses nothing.
func (r *Room) arrived(lk *lksdk.Room, rp *lksdk.RemoteParticipant) {
	role := r.roles.Role(rp)
	r.forgetEarly(rp.Identity())
	r.log.Info("participant present", "identity", rp.Identity(), "role", role.String())
	for _, pub := range rp.TrackPublications() {
		if rpub, ok := pub.(*lksdk.RemoteTrackPublication); ok {
			r.maybeSubscribe(rpub, rp)
		}
	}
	if role == RoleCandidate || role == RoleExaminer {
		r.allowListeners(lk)
		r.replayTo(rp.Identity(), 1)
	}
	if role == RoleExaminer {
		r.warnLateExaminer(lk, rp.Identity())
	}
	r.notifyChanged()
}

// attributesChanged logs a change of the role attribute, which never changes a role: roles are
// fixed when a participant is first seen. The SDK reports a participant's first attributes
// (the bot's own among them) as a change too; the attribute saying the role it has is none.
func (r *Room) attributesChanged(changed map[string]string, p lksdk.Participant) {
	if v, ok := changed[RoleAttribute]; ok && p != nil && v != r.roles.Role(p).String() {
		r.log.Warn("role attribute change ignored", "identity", p.Identity(), "new", v, "role", r.roles.Role(p).String())
	}
}

func (r *Room) maybeSubscribe(pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	if r.roles.Role(rp) != RoleCandidate || pub.Kind() != lksdk.TrackKindAudio {
		return
	}
	if pub.Source() != lkproto.TrackSource_MICROPHONE && pub.Source() != lkproto.TrackSource_UNKNOWN {
		return
	}
	if err := pub.SetSubscribed(true); err != nil {
		r.log.Warn("subscribe to candidate audio", "identity", rp.Identity(), "track", pub.SID(), "err", err)
	}
}

func (r *Room) attachAudio(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	if track.Kind() != webrtc.RTPCodecTypeAudio || r.roles.Role(rp) != RoleCandidate {
		return
	}
	sink := &frameSink{from: rp.Identity(), rate: InputSampleRate, out: r.audio, dropped: &r.stats.audioDropped, log: r.log}
	if err := r.remotes.decode(track, pub.SID(), sink, r.log); err != nil {
		r.log.Error("decode candidate audio", "identity", rp.Identity(), "err", err)
		return
	}
	r.log.Info("candidate audio subscribed", "identity", rp.Identity(), "track", pub.SID())
}

func (r *Room) onData(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
	at := time.Now()
	u, ok := data.(*lksdk.UserDataPacket)
	if !ok {
		return
	}
	sender, role, known := senderRole(r.conn.room(), r.roles, params)
	if !known {
		role, known = r.earlyRole(sender)
	}
	if !known && sender != "" && (u.Topic == TopicCandidateInput || u.Topic == TopicExaminerCommands) {
		r.in.push(inbound{unsure: &unsurePacket{topic: u.Topic, payload: u.Payload, identity: sender, at: at}})
		return
	}
	msg, ok := classify(u.Topic, u.Payload, sender, role, at)
	if !ok || !r.admit(msg) {
		return
	}
	r.in.push(msg)
}

// resolve classifies a packet whose sender was unknown when it arrived, waiting (in order: the
// handler goroutine holds later messages meanwhile) until the sender's role is known or
// unknownSenderWait has passed.
func (r *Room) resolve(ctx context.Context, p *unsurePacket) inbound {
	deadline := time.Now().Add(unknownSenderWait)
	r.askServerFor(ctx, p.identity)
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		role, known := RoleUnknown, false
		if lk := r.conn.room(); lk != nil {
			if rp := lk.GetParticipantByIdentity(p.identity); rp != nil {
				role, known = r.roles.Role(rp), true
			}
		}
		if !known {
			role, known = r.earlyRole(p.identity)
		}
		if known || time.Now().After(deadline) {
			msg, _ := classify(p.topic, p.payload, p.identity, role, p.at)
			return msg
		}
		select {
		case <-ctx.Done():
			msg, _ := classify(p.topic, p.payload, p.identity, RoleUnknown, p.at)
			return msg
		case <-changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Handlers receive what participants send the bot. Each may be nil: candidate text and
// commands without a handler are logged and dropped; rejections without one are reported to
// the examiners (see WithRejections).
type Handlers struct {
	CandidateText   func(CandidateText)
	ExaminerCommand func(ExaminerCommand)
	Rejection       func(Rejection)
	// Presence is told when a vouched candidate arrives or leaves (presence.go).
	Presence func(CandidatePresence)
}

// SetHandlers installs the handlers, for a caller (such as Bot) that can only build them after
// joining. Messages that arrived before the first handlers were set wait for them.
func (r *Room) SetHandlers(h Handlers) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers = h
	select {
	case <-r.handlersSet:
	default:
		close(r.handlersSet)
	}
}

// handleLoop runs the handlers one message at a time, so that a handler that blocks (the
// controller thinking about a turn) delays later messages instead of reordering them, and never
// holds up the SDK's receive path.
func (r *Room) handleLoop(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-r.handlersSet:
	}
	for {
		msg, ok := r.in.pop(ctx)
		if !ok {
			return
		}
		if msg.unsure != nil {
			if msg = r.resolve(ctx, msg.unsure); !r.admit(msg) {
				continue
			}
		}
		r.mu.Lock()
		h := r.handlers
		r.mu.Unlock()
		switch {
		case msg.text != nil && msg.text.Ready:
			r.replayAsked(msg.text.Sender)
			r.answer(msg.text.Sender, Receipt{ID: msg.text.ID})
		case msg.command != nil && msg.command.Kind == CommandReady:
			r.replayAsked(msg.command.Sender)
			r.answer(msg.command.Sender, Receipt{ID: msg.command.ID})
		case msg.text != nil:
			r.log.Info("candidate text", "from", msg.text.Sender, "chars", len(msg.text.Text))
			if h.CandidateText != nil {
				h.CandidateText(*msg.text)
			}
		case msg.command != nil:
			r.log.Info("examiner command", "from", msg.command.Sender, "kind", msg.command.Kind.String())
			if h.ExaminerCommand != nil {
				h.ExaminerCommand(*msg.command)
			}
		case msg.presence != nil:
			if h.Presence != nil {
				h.Presence(*msg.presence)
			}
		case msg.reject != nil:
			r.stats.rejected.Add(1)
			if h.Rejection != nil {
				h.Rejection(*msg.reject)
			} else {
				r.reportRejection(*msg.reject)
			}
		}
	}
}

// untrusted logs and reports to the examiners a participant that could have given itself its
// role (see RoleBook).
func (r *Room) untrusted(u UntrustedParticipant) {
	r.log.Warn("participant refused a role", "identity", u.Identity, "sid", u.SID, "claimed", u.Claimed, "verdict", u.Verdict.String())
	r.ReportError(runtime.CodeUntrustedParticipant, u.String())
}

// warnLateExaminer tells an examiner who just arrived about participants already in the room
// that were refused a role: the first report went only to the examiners present then.
func (r *Room) warnLateExaminer(lk *lksdk.Room, examiner string) {
	for _, other := range lk.GetRemoteParticipants() {
		_, v := VouchedRole(other.Attributes(), other.Permissions())
		if v != VerdictSelfUpdatable {
			continue
		}
		u := UntrustedParticipant{Identity: other.Identity(), SID: other.SID(), Claimed: other.Attributes()[RoleAttribute], Verdict: v}
		r.mu.Lock()
		session := r.lastSession
		r.mu.Unlock()
		ev, err := runtime.NewEvent(session, 0, time.Now(), &runtime.SystemErrorPayload{Code: runtime.CodeUntrustedParticipant, Message: u.String()})
		if err != nil {
			r.log.Error("encode error report", "err", err)
			continue
		}
		r.out.push(outItem{ev: ev, to: examiner, replay: true})
	}
}

// reportRejection logs a refused message and tells the examiners, within the sender's rate
// (rejectLimiter): beyond it the message is only counted, for the aggregate report.
func (r *Room) reportRejection(rej Rejection) {
	if !r.rejects.allow(rej, time.Now()) {
		return
	}
	r.log.Warn("inbound message rejected", "topic", rej.Topic, "from", rej.Sender, "role", rej.Role.String(), "err", rej.Err)
	r.ReportError(rej.code(), rej.String())
}

// reportHeldRejections is the aggregate of the refused messages reportRejection only counted.
func (r *Room) reportHeldRejections(last Rejection, text string) {
	r.log.Warn("inbound messages rejected", "summary", text, "topic", last.Topic, "role", last.Role.String(), "err", last.Err)
	r.ReportError(last.code(), fmt.Sprintf("%s (the last on %s, role %s: %v)", text, last.Topic, last.Role, last.Err))
}

// ReportError tells the examiners about a problem out of band: a system_error event with seq
// 0, because it is not part of the session's journal, which only the controller numbers.
func (r *Room) ReportError(code runtime.ErrorCode, message string) {
	r.mu.Lock()
	session := r.lastSession
	r.mu.Unlock()
	ev, err := runtime.NewEvent(session, 0, time.Now(), &runtime.SystemErrorPayload{Code: code, Message: message})
	if err != nil {
		r.log.Error("encode error report", "err", err)
		return
	}
	r.out.push(outItem{ev: ev})
}

// Audio delivers the candidate's decoded microphone audio: 16 kHz mono, about 20 ms a frame.
// It is never closed while the room is open; a consumer that falls behind loses frames.
func (r *Room) Audio() <-chan AudioFrame { return r.audio }

// Voice is the bot's outgoing speech.
func (r *Room) Voice() *Voice { return r.voice }

// State reports the connection state.
func (r *Room) State() ConnState { return r.conn.State() }

// Stats returns counters of what the room did.
func (r *Room) Stats() Stats {
	return Stats{
		EventsSent:   r.stats.eventsSent.Load(),
		PacketsSent:  r.stats.packetsSent.Load(),
		Replays:      r.stats.replays.Load(),
		Rejected:     r.stats.rejected.Load(),
		Oversize:     r.stats.oversize.Load(),
		AudioDropped: r.stats.audioDropped.Load(),
		Duplicates:   r.stats.duplicates.Load(),

		ServerArrivals: r.serverArrivals(),
	}
}

func (r *Room) notifyChanged() {
	r.mu.Lock()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	r.presence.poke()
}

// Candidate returns the identity of the candidate in the room, or "" if none is.
func (r *Room) Candidate() string {
	for _, p := range r.Participants() {
		if p.Role == RoleCandidate {
			return p.Identity
		}
	}
	return ""
}

// Participant is someone in the room as the bot sees them.
type Participant struct {
	Identity string
	Role     Role
	SID      string // the server's participant id of this connection
}

// Participants lists the remote participants the bot can see.
func (r *Room) Participants() []Participant {
	lk := r.conn.room()
	if lk == nil {
		return nil
	}
	var ps []Participant
	for _, rp := range lk.GetRemoteParticipants() {
		ps = append(ps, Participant{Identity: rp.Identity(), Role: r.roles.Role(rp), SID: rp.SID()})
	}
	return append(ps, r.earlyParticipants(lk)...)
}

// WaitParticipants blocks until ok holds for the participants the bot sees, checking each
// time they change (arrive, leave, a role becomes known), or until ctx ends.
func (r *Room) WaitParticipants(ctx context.Context, ok func([]Participant) bool) error {
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if ok(r.Participants()) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for participants: %w", ctx.Err())
		case <-r.ctx.Done():
			return ErrClosed
		case <-ch:
		}
	}
}

// WaitCandidate blocks until a candidate is in the room and returns its identity. With the
// server's API key and secret in its Config, the bot asks the server who is in the room while
// it waits (serverview.go), so a candidate who publishes nothing is seen at once rather than at
// the server's next participant batch.
func (r *Room) WaitCandidate(ctx context.Context) (string, error) {
	var poll <-chan time.Time
	var timer *time.Timer
	if r.server.client != nil {
		timer = time.NewTimer(r.server.nextAsk(time.Now()))
		defer timer.Stop()
		poll = timer.C
	}
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if id := r.Candidate(); id != "" {
			r.server.stopWaiting()
			return id, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w: %w", ErrCandidateMissing, ctx.Err())
		case <-r.ctx.Done():
			return "", ErrClosed
		case <-ch:
		case <-poll:
			r.askServer(ctx)
			timer.Reset(r.server.nextAsk(time.Now()))
		}
	}
}

// Close sends what is still queued (for up to flushTimeout), leaves the room and stops every
// goroutine. It is safe to call more than once.
func (r *Room) Close() error {
	r.closeOnce.Do(func() {
		r.rejects.close()
		r.flush(flushTimeout)
		r.cancel()
		r.conn.close()
		r.voice.close()
		r.wg.Wait()
		r.remotes.stopAll()
	})
	return nil
}

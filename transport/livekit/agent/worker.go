package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/livekit/protocol/auth"
	lkproto "github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/proto"

	"github.com/examtui/examtui/transport/livekit/internal/lkconfig"
)

// Config says which server to register with and as which agent.
type Config struct {
	URL       string // ws(s):// or http(s):// address of the LiveKit server
	APIKey    string
	APISecret string
	AgentName string // the name dispatches address; required (examtui never takes unnamed jobs)
	Version   string // reported to the server
	// Permissions are the grants of the participant each job's token admits; nil: the server's
	// default (publish, subscribe, data, metadata).
	Permissions *lkproto.ParticipantPermission
}

func (c Config) validate() error {
	if err := lkconfig.CheckServerURL(c.URL, ErrInvalidConfig); err != nil {
		return err
	}
	if c.APIKey == "" || c.APISecret == "" {
		return fmt.Errorf("%w: API key and secret are required", ErrInvalidConfig)
	}
	if c.AgentName == "" {
		return fmt.Errorf("%w: agent name is required", ErrInvalidConfig)
	}
	return nil
}

// agentURL is the server's /agent WebSocket address.
func (c Config) agentURL() string {
	u, _ := url.Parse(c.URL) // validated
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/agent"
	u.RawQuery = ""
	return u.String()
}

// Worker is one agent worker. Run it; it reconnects by itself.
type Worker struct {
	cfg  Config
	h    Handler
	opts options
	log  *slog.Logger

	jobsCtx    context.Context
	cancelJobs context.CancelFunc
	jobsWG     sync.WaitGroup

	mu       sync.Mutex
	conn     *websocket.Conn // nil while not connected
	writeMu  sync.Mutex
	state    State
	workerID string
	jobs     map[string]*runningJob // assigned and running
	pending  map[string]time.Time   // accepted offers awaiting assignment
	draining bool
	lastSent *lkproto.UpdateWorkerStatus

	registrations atomic.Int64
	lastRTT       atomic.Int64 // ns
	statusKick    chan struct{}
}

type runningJob struct {
	req    JobRequest
	cancel context.CancelFunc
}

// New builds a worker; nothing connects until Run.
func New(cfg Config, h Handler, opts ...Option) (*Worker, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("%w: a handler is required", ErrInvalidConfig)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Worker{cfg: cfg, h: h, opts: o, log: o.log.With("agent", cfg.AgentName),
		jobsCtx: ctx, cancelJobs: cancel,
		jobs: map[string]*runningJob{}, pending: map[string]time.Time{},
		statusKick: make(chan struct{}, 1)}, nil
}

// ID is the worker id the server gave at the last registration ("" before).
func (w *Worker) ID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.workerID
}

// State is the worker's connection state.
func (w *Worker) State() State {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// Registrations counts successful registrations (more than one: it reconnected).
func (w *Worker) Registrations() int64 { return w.registrations.Load() }

// RTT is the round trip of the last ping answered by the server.
func (w *Worker) RTT() time.Duration { return time.Duration(w.lastRTT.Load()) }

// Jobs lists the running jobs.
func (w *Worker) Jobs() []JobRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]JobRequest, 0, len(w.jobs))
	for _, j := range w.jobs {
		out = append(out, j.req)
	}
	return out
}

// RunningJobs is the number of running jobs.
func (w *Worker) RunningJobs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.jobs)
}

// SetDraining stops (or resumes) taking jobs: the server is told the worker is full, and
// offers are declined. Running jobs go on.
func (w *Worker) SetDraining(on bool) {
	w.mu.Lock()
	w.draining = on
	w.mu.Unlock()
	w.kickStatus()
}

// StopJobs cancels every running job's context (the jobs end as their handler decides).
func (w *Worker) StopJobs() { w.cancelJobs() }

// WaitJobs blocks until every job has returned, or ctx ends.
func (w *Worker) WaitJobs(ctx context.Context) error {
	done := make(chan struct{})
	go func() { w.jobsWG.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run registers with the server and serves it until ctx ends, reconnecting (and registering
// again) whenever the connection is lost. Jobs are not stopped when Run returns: use StopJobs
// and WaitJobs.
func (w *Worker) Run(ctx context.Context) error {
	defer w.setState(StateClosed)
	delay := w.opts.minBackoff
	for {
		w.setState(StateConnecting)
		registered, err := w.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if registered {
			delay = w.opts.minBackoff
		}
		w.setState(StateLost)
		w.log.Warn("agent server connection lost; reconnecting", "err", err, "in", delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(delay*2, w.opts.maxBackoff)
	}
}

func (w *Worker) setState(s State) {
	w.mu.Lock()
	changed := w.state != s
	w.state = s
	w.mu.Unlock()
	if changed && w.opts.onState != nil {
		w.opts.onState(s)
	}
}

// token mints the worker's own token: the agent grant, nothing else.
func (w *Worker) token() (string, error) {
	at := auth.NewAccessToken(w.cfg.APIKey, w.cfg.APISecret).
		SetVideoGrant(&auth.VideoGrant{Agent: true}).
		SetValidFor(10 * time.Minute)
	return at.ToJWT()
}

// session is one connection: dial, register, serve until it fails or ctx ends.
func (w *Worker) session(ctx context.Context) (registered bool, err error) {
	tok, err := w.token()
	if err != nil {
		return false, fmt.Errorf("%w: token: %w", ErrRegister, err)
	}
	dctx, cancel := context.WithTimeout(ctx, w.opts.dialTimeout)
	defer cancel()
	hdr := http.Header{"Authorization": []string{"Bearer " + tok}}
	conn, resp, err := websocket.DefaultDialer.DialContext(dctx, w.cfg.agentURL()+"?protocol=1", hdr)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return false, fmt.Errorf("%w: dial %s: %s: %w", ErrRegister, w.cfg.agentURL(), resp.Status, err)
		}
		return false, fmt.Errorf("%w: dial %s: %w", ErrRegister, w.cfg.agentURL(), err)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	defer conn.Close()

	if err := w.register(conn); err != nil {
		return false, err
	}
	w.mu.Lock()
	w.conn = conn
	w.lastSent = nil
	w.mu.Unlock()
	w.setState(StateRegistered)
	defer func() {
		w.mu.Lock()
		w.conn = nil
		w.mu.Unlock()
	}()

	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.keepAlive(sctx, conn) }()
	err = w.read(sctx, conn)
	scancel()
	_ = conn.Close()
	wg.Wait()
	return true, err
}

func (w *Worker) register(conn *websocket.Conn) error {
	req := &lkproto.RegisterWorkerRequest{
		Type:               lkproto.JobType_JT_ROOM,
		AgentName:          w.cfg.AgentName,
		Version:            w.cfg.Version,
		PingInterval:       uint32(w.opts.pingInterval / time.Second),
		AllowedPermissions: w.cfg.Permissions,
	}
	if err := w.write(conn, &lkproto.WorkerMessage{Message: &lkproto.WorkerMessage_Register{Register: req}}); err != nil {
		return fmt.Errorf("%w: %w", ErrRegister, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(w.opts.dialTimeout))
	for {
		msg, err := readServerMessage(conn)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrRegister, err)
		}
		if r := msg.GetRegister(); r != nil {
			w.mu.Lock()
			w.workerID = r.GetWorkerId()
			w.mu.Unlock()
			w.registrations.Add(1)
			w.log.Info("agent worker registered", "worker", r.GetWorkerId(), "server", r.GetServerInfo().GetVersion())
			return nil
		}
	}
}

// readServerMessage reads one message; the server answers in the encoding the worker used
// (binary protobuf here), but text (protojson) is understood too.
func readServerMessage(conn *websocket.Conn) (*lkproto.ServerMessage, error) {
	typ, data, err := conn.ReadMessage()
	if err != nil {
		return nil, err
	}
	return decodeServerMessage(typ, data)
}

func (w *Worker) write(conn *websocket.Conn, msg *lkproto.WorkerMessage) error {
	data, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	_ = conn.SetWriteDeadline(time.Now().Add(w.opts.writeTimeout))
	return conn.WriteMessage(websocket.BinaryMessage, data)
}

// send writes on the current connection, if there is one.
func (w *Worker) send(msg *lkproto.WorkerMessage) error {
	w.mu.Lock()
	conn := w.conn
	w.mu.Unlock()
	if conn == nil {
		return ErrNotConnected
	}
	return w.write(conn, msg)
}

// read serves server messages until the connection fails. Any message, or a WebSocket ping
// from the server, proves the connection alive; silence longer than the dead timeout ends it.
func (w *Worker) read(ctx context.Context, conn *websocket.Conn) error {
	extend := func() { _ = conn.SetReadDeadline(time.Now().Add(w.opts.deadAfter)) }
	extend()
	conn.SetPingHandler(func(data string) error {
		extend()
		w.writeMu.Lock()
		defer w.writeMu.Unlock()
		return conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(w.opts.writeTimeout))
	})
	for {
		msg, err := readServerMessage(conn)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		extend()
		switch m := msg.GetMessage().(type) {
		case *lkproto.ServerMessage_Availability:
			go w.offer(ctx, m.Availability.GetJob())
		case *lkproto.ServerMessage_Assignment:
			w.assign(m.Assignment)
		case *lkproto.ServerMessage_Termination:
			w.terminate(m.Termination.GetJobId())
		case *lkproto.ServerMessage_Pong:
			if ts := m.Pong.GetLastTimestamp(); ts > 0 {
				w.lastRTT.Store(int64(time.Since(time.UnixMilli(ts))))
			}
		case *lkproto.ServerMessage_Register:
			w.log.Warn("agent server registered the worker again", "worker", m.Register.GetWorkerId())
		}
	}
}

// capacity says whether another job fits, counting accepted offers not yet assigned.
func (w *Worker) capacity() (free bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	for id, at := range w.pending {
		if now.Sub(at) > w.opts.pendingTimeout {
			delete(w.pending, id) // the server gave the job to someone else or gave up
		}
	}
	return !w.draining && len(w.jobs)+len(w.pending) < w.opts.maxJobs
}

func (w *Worker) offer(ctx context.Context, job *lkproto.Job) {
	req := jobRequest(job)
	ans := Answer{}
	if w.capacity() {
		octx, cancel := context.WithTimeout(ctx, w.opts.offerTimeout)
		ans = w.h.Offer(octx, req)
		cancel()
	}
	if ans.Accept {
		w.mu.Lock()
		if w.draining || len(w.jobs)+len(w.pending) >= w.opts.maxJobs {
			ans.Accept = false // filled up while the handler decided
		} else {
			w.pending[req.ID] = time.Now()
		}
		w.mu.Unlock()
	}
	w.log.Debug("job offered", "job", req.ID, "room", req.Room, "accept", ans.Accept)
	resp := &lkproto.AvailabilityResponse{JobId: req.ID, Available: ans.Accept}
	if ans.Accept {
		resp.ParticipantIdentity, resp.ParticipantName, resp.ParticipantAttributes = ans.Identity, ans.Name, ans.Attributes
	}
	if err := w.send(&lkproto.WorkerMessage{Message: &lkproto.WorkerMessage_Availability{Availability: resp}}); err != nil {
		w.log.Warn("answer job offer", "job", req.ID, "err", err)
		w.mu.Lock()
		delete(w.pending, req.ID)
		w.mu.Unlock()
	}
	w.kickStatus()
}

func (w *Worker) assign(a *lkproto.JobAssignment) {
	req := jobRequest(a.GetJob())
	as := Assignment{JobRequest: req, URL: a.GetUrl(), Token: a.GetToken()}
	if as.URL == "" {
		as.URL = w.cfg.URL
	}
	ctx, cancel := context.WithCancel(w.jobsCtx)
	w.mu.Lock()
	delete(w.pending, req.ID)
	if _, dup := w.jobs[req.ID]; dup {
		w.mu.Unlock()
		cancel()
		w.log.Warn("duplicate job assignment ignored", "job", req.ID)
		return
	}
	w.jobs[req.ID] = &runningJob{req: req, cancel: cancel}
	w.jobsWG.Add(1)
	w.mu.Unlock()
	w.kickStatus()
	w.log.Info("job assigned", "job", req.ID, "room", req.Room)
	go func() {
		defer w.jobsWG.Done()
		defer cancel()
		w.UpdateJob(req.ID, lkproto.JobStatus_JS_RUNNING, "")
		err := w.h.Run(ctx, as)
		w.mu.Lock()
		delete(w.jobs, req.ID)
		w.mu.Unlock()
		if err != nil {
			w.UpdateJob(req.ID, lkproto.JobStatus_JS_FAILED, err.Error())
		} else {
			w.UpdateJob(req.ID, lkproto.JobStatus_JS_SUCCESS, "")
		}
		w.kickStatus()
	}()
}

func (w *Worker) terminate(jobID string) {
	w.mu.Lock()
	j := w.jobs[jobID]
	w.mu.Unlock()
	if j == nil {
		return
	}
	w.log.Info("job terminated by the server", "job", jobID, "room", j.req.Room)
	j.cancel()
}

// UpdateJob reports a job's status to the server (best effort: a job whose worker reconnected
// since is unknown to the server, which ignores the update).
func (w *Worker) UpdateJob(jobID string, status lkproto.JobStatus, errText string) {
	err := w.send(&lkproto.WorkerMessage{Message: &lkproto.WorkerMessage_UpdateJob{UpdateJob: &lkproto.UpdateJobStatus{
		JobId: jobID, Status: status, Error: errText}}})
	if err != nil && !errors.Is(err, ErrNotConnected) {
		w.log.Warn("report job status", "job", jobID, "status", status.String(), "err", err)
	}
}

func (w *Worker) kickStatus() {
	select {
	case w.statusKick <- struct{}{}:
	default:
	}
}

// status is what the worker tells the server about itself: full while draining or at
// capacity, and its load.
func (w *Worker) status() *lkproto.UpdateWorkerStatus {
	w.mu.Lock()
	n := len(w.jobs) + len(w.pending)
	full := w.draining || n >= w.opts.maxJobs
	w.mu.Unlock()
	// The job share is scaled to the server's target load, which it treats as a node's
	// ceiling (no job reaches a node whose workers are all at or above it): a worker one job
	// short of its limit must still look below it. The load function (CPU) is reported as it
	// is, so a saturated worker stops getting jobs while others have room.
	load := float32(n) / float32(w.opts.maxJobs) * w.opts.targetLoad
	if w.opts.load != nil {
		load = max(load, w.opts.load())
	}
	load = min(max(load, 0), 1)
	st := lkproto.WorkerStatus_WS_AVAILABLE
	if full {
		st = lkproto.WorkerStatus_WS_FULL
	}
	return &lkproto.UpdateWorkerStatus{Status: &st, Load: load, JobCount: uint32(n)}
}

// keepAlive pings the server and sends the worker's status when it changes (at most every
// status interval apart from kicks, and at least every ping).
func (w *Worker) keepAlive(ctx context.Context, conn *websocket.Conn) {
	ping := time.NewTicker(w.opts.pingInterval)
	defer ping.Stop()
	stat := time.NewTicker(w.opts.statusInterval)
	defer stat.Stop()
	sendStatus := func(force bool) {
		st := w.status()
		w.mu.Lock()
		last := w.lastSent
		same := last != nil && last.GetStatus() == st.GetStatus() && last.GetJobCount() == st.GetJobCount() &&
			abs32(last.GetLoad()-st.GetLoad()) < 0.02
		if !same || force {
			w.lastSent = st
		}
		w.mu.Unlock()
		if same && !force {
			return
		}
		if err := w.write(conn, &lkproto.WorkerMessage{Message: &lkproto.WorkerMessage_UpdateWorker{UpdateWorker: st}}); err != nil {
			w.log.Debug("send worker status", "err", err)
		}
	}
	sendStatus(true)
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.statusKick:
			sendStatus(false)
		case <-stat.C:
			sendStatus(false)
		case <-ping.C:
			if err := w.write(conn, &lkproto.WorkerMessage{Message: &lkproto.WorkerMessage_Ping{
				Ping: &lkproto.WorkerPing{Timestamp: time.Now().UnixMilli()}}}); err != nil {
				w.log.Debug("ping", "err", err)
			}
			sendStatus(true)
		}
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// Adopt runs a job the server did not assign (an exam this worker takes over from a lost
// one) as one of the worker's jobs: it counts towards load and the job limit, shows in Jobs,
// and StopJobs cancels it. It reports false, running nothing, when the worker is full or
// draining. No status is reported to the server, which does not know the job.
func (w *Worker) Adopt(req JobRequest, run func(ctx context.Context) error) bool {
	w.mu.Lock()
	if w.draining || len(w.jobs)+len(w.pending) >= w.opts.maxJobs {
		w.mu.Unlock()
		return false
	}
	if _, dup := w.jobs[req.ID]; dup {
		w.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithCancel(w.jobsCtx)
	w.jobs[req.ID] = &runningJob{req: req, cancel: cancel}
	w.jobsWG.Add(1)
	w.mu.Unlock()
	w.kickStatus()
	go func() {
		defer w.jobsWG.Done()
		defer cancel()
		if err := run(ctx); err != nil {
			w.log.Warn("adopted job failed", "job", req.ID, "room", req.Room, "err", err)
		}
		w.mu.Lock()
		delete(w.jobs, req.ID)
		w.mu.Unlock()
		w.kickStatus()
	}()
	return true
}

// Full reports whether the worker takes no more jobs now (at its limit, or draining).
func (w *Worker) Full() bool { return !w.capacity() }

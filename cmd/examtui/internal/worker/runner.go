package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/livekit/agent"
	"github.com/examtui/examtui/transport/voicepath"
)

// DefaultBotIdentity is the examiner bot's identity in every room. One identity for every
// worker matters for failover: the bot that takes over replaces a dead one at once (the
// server drops a participant whose identity joins again) instead of waiting for it to time out.
const DefaultBotIdentity = "examtui-bot"

// ReconnectedNotice is what the candidate hears when a worker takes over their exam.
const ReconnectedNotice = "Sorry, the examiner lost the connection for a moment and is back now."

// closingSpeech bounds how long a finished exam's bot stays to say its last lines.
const closingSpeech = 30 * time.Second

// endLinger is how long a finished exam's bot stays after its last lines while the candidate
// is still in the room: leaving closes the data channel, which drops events still in flight (a
// loaded link retransmits for seconds), and a candidate who reconnects in that moment still
// gets the replay. A candidate who has left needs neither, and the bot leaves at once.
const endLinger = 5 * time.Second

// VoiceFunc builds an exam's voice providers for its language and turn-taking policy (nil: the
// defaults); nil recogniser and synthesizer mean typed answers and written lines only.
type VoiceFunc func(language string, tt *spec.ResolvedTurnTaking, log *slog.Logger) (audio.Recognizer, audio.Synthesizer, []voicepath.Option, error)

// Config is what every job of a worker shares.
type Config struct {
	SpecsDir string // where dispatches' spec names are looked up
	DataDir  string // the data directory (the session store unless Store is set)
	Store    string // the session store shared by the pool (app.StoreTarget): a data directory or a postgres:// URL; empty: DataDir
	Examiner string // auto | offline | llm (a dispatch may override)
	Model    string
	// Languages are the language packs (the config file's); nil: the shipped ones.
	Languages   *lang.Registry
	BotIdentity string // default DefaultBotIdentity
	Voice       VoiceFunc
	Logger      *slog.Logger
	// RoomOptions are passed to each job's room (rejoin backoff...).
	RoomOptions []livekit.Option
	// APIKey and APISecret let each exam's bot ask the server who is in its room while it waits
	// for the candidate (a typing-only candidate is otherwise announced only every 3 s; see
	// transport/livekit/serverview.go). Empty: the bot waits for the server's announcements.
	APIKey, APISecret string
}

// Runner decides on offers and runs jobs (it is the agent.Handler of `examtui worker`).
type Runner struct {
	cfg   Config
	log   *slog.Logger
	store *sessions.Store

	mu   sync.Mutex
	jobs map[string]*JobInfo // by session id
}

// JobInfo is one running exam, for the worker's table.
type JobInfo struct {
	JobID     string
	Room      string
	Candidate string
	SessionID string
	Node      string
	State     runtime.ExamState
	Started   time.Time
	Resumed   bool

	stop context.CancelFunc
}

// NewRunner opens the shared store and checks the spec directory.
func NewRunner(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.DataDir == "" && cfg.Store == "" {
		return nil, fmt.Errorf("%w: a session store (a data directory or a postgres:// URL) is required", ErrInvalidConfig)
	}
	if cfg.Store == "" {
		cfg.Store = cfg.DataDir
	}
	if cfg.SpecsDir != "" {
		if _, err := resolveSpec(cfg.SpecsDir, "x"); err != nil && !errors.Is(err, ErrUnknownSpec) {
			return nil, err
		}
	}
	if cfg.BotIdentity == "" {
		cfg.BotIdentity = DefaultBotIdentity
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	store, err := openStore(ctx, cfg.Store, log)
	if err != nil {
		return nil, err
	}
	return &Runner{cfg: cfg, log: log, store: store, jobs: map[string]*JobInfo{}}, nil
}

// Close closes the store the runner's jobs share; call it once they have ended.
func (r *Runner) Close() error { return r.store.Close() }

// Jobs lists the running exams, oldest first.
func (r *Runner) Jobs() []JobInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]JobInfo, 0, len(r.jobs))
	for _, j := range r.jobs {
		c := *j
		c.stop = nil
		out = append(out, c)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Started.Before(out[k].Started) })
	return out
}

// StopWaiting stops the exams still waiting for their candidate (a draining worker lets
// running exams finish, but need not keep rooms where nothing has begun): their sessions stay
// resumable, and another worker takes them over. It returns how many it stopped.
func (r *Runner) StopWaiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, j := range r.jobs {
		if j.State == runtime.StateCreated && j.stop != nil {
			j.stop()
			n++
		}
	}
	return n
}

func (r *Runner) running(sessionID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.jobs[sessionID]
	return ok
}

// Offer accepts every job the agent worker has room for (it declines for us when full or
// draining): what the job asks for is checked when it runs, so that a bad dispatch is
// reported with its reason rather than passed from worker to worker.
func (r *Runner) Offer(_ context.Context, req agent.JobRequest) agent.Answer {
	return agent.Answer{Accept: true, Identity: r.cfg.BotIdentity, Name: "Examiner",
		Attributes: map[string]string{livekit.RoleAttribute: livekit.RoleBot.String()}}
}

// Run runs the exam a dispatch asks for; an error is reported to the server as the job's
// failure reason (an exam stopped by ctx, e.g. at the drain timeout, says it is resumable).
func (r *Runner) Run(ctx context.Context, a agent.Assignment) error {
	log := r.log.With("job", a.ID, "room", a.Room)
	md, err := ParseMetadata(a.Metadata)
	if err != nil {
		return r.reject(ctx, a, err, log)
	}
	specPath, err := resolveSpec(r.cfg.SpecsDir, md.Spec)
	if err != nil {
		return r.reject(ctx, a, err, log)
	}
	examiner := r.cfg.Examiner
	if md.Options.Examiner != "" {
		examiner = md.Options.Examiner
	}
	j := exam{room: a.Room, jobID: a.ID, sessionID: SessionKey(a.Room, a.RoomSID), specPath: specPath,
		candidate: md.Candidate, candidateID: md.CandidateID, examiner: examiner, cfg: livekit.Config{URL: a.URL, Token: a.Token, APIKey: r.cfg.APIKey, APISecret: r.cfg.APISecret}}
	err = r.runExam(ctx, j, log)
	if err != nil {
		log.Warn("job ended with an error", "err", err)
	}
	return err
}

// exam is one job's exam.
type exam struct {
	room, jobID, sessionID string
	specPath, candidate    string
	candidateID            string
	examiner               string
	cfg                    livekit.Config
	takeover               bool // a worker died running it; tell the candidate
}

// runExam runs one exam in its room: a new session, or the stored one resumed. A panic or an
// error after the exam opened ends this exam only: a system_error is recorded and the session
// is left interrupted (resumable); the worker and its other exams go on.
func (r *Runner) runExam(ctx context.Context, j exam, log *slog.Logger) (err error) {
	opts := app.Options{SpecPath: j.specPath, Examiner: j.examiner, Model: r.cfg.Model, Input: runtime.SourceRoom,
		Candidate: j.candidate, CandidateID: j.candidateID, DataDir: r.cfg.DataDir, Store: r.cfg.Store, SharedStore: r.store, Logger: log,
		Languages: r.cfg.Languages}
	sess, gerr := r.store.Get(ctx, j.sessionID)
	switch {
	case errors.Is(gerr, sessions.ErrNotFound) && j.takeover:
		return fmt.Errorf("%w (session %s is gone)", ErrExamEnded, j.sessionID)
	case errors.Is(gerr, sessions.ErrNotFound):
		opts.SessionID = j.sessionID
	case gerr != nil:
		return gerr
	case !sess.EndedAt.IsZero():
		return fmt.Errorf("%w (session %s)", ErrExamEnded, j.sessionID)
	default:
		opts.ResumeID = j.sessionID
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	x, err := app.Open(ctx, opts)
	if err != nil {
		switch {
		case errors.Is(err, sessions.ErrSessionBusy):
			return fmt.Errorf("%w (session %s)", ErrExamElsewhere, j.sessionID)
		case errors.Is(err, app.ErrSpecInvalid):
			return fmt.Errorf("%w: %s", ErrBadSpec, err)
		}
		return err
	}
	info := &JobInfo{JobID: j.jobID, Room: j.room, Candidate: j.candidate, SessionID: x.SessionID,
		Started: time.Now(), Resumed: opts.ResumeID != "", State: x.Controller.Snapshot().State, stop: stop}
	if info.Candidate == "" && sess != nil {
		info.Candidate = sess.Candidate
	}
	r.mu.Lock()
	r.jobs[x.SessionID] = info
	r.mu.Unlock()
	log = log.With("session", x.SessionID)
	var rb *app.RoomBot
	defer func() {
		if p := recover(); p != nil {
			log.Error("exam job panicked", "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("exam job panicked: %v", p)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			if rerr := x.Controller.ReportSystemError(runtime.CodeWorkerJobFailed, err.Error()); rerr != nil {
				log.Warn("record the job's failure", "err", rerr)
			}
		}
		r.finish(x, rb, log)
		r.mu.Lock()
		delete(r.jobs, x.SessionID)
		r.mu.Unlock()
	}()

	events := make(chan runtime.Event, 64)
	go func() {
		for ev := range x.Events() {
			select {
			case events <- ev:
			default: // the watcher below reads the controller's snapshot anyway
			}
		}
		close(events)
	}()

	var rec audio.Recognizer
	var synth audio.Synthesizer
	var vopts []voicepath.Option
	if r.cfg.Voice != nil {
		if rec, synth, vopts, err = r.cfg.Voice(x.Spec.Language, x.Spec.Policies.TurnTaking, log); err != nil {
			return err
		}
	}
	rb, err = x.JoinRoom(ctx, app.RoomOptions{Config: j.cfg, Recognizer: rec, Synthesizer: synth, VoiceOptions: vopts,
		RoomOptions: r.cfg.RoomOptions})
	if err != nil {
		return err
	}
	snap := x.Controller.Snapshot()
	if snap.State == runtime.StateCreated {
		log.Info("waiting for the candidate")
		id, err := waitCandidate(ctx, rb)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("stopped before the candidate came (session %s is resumable): %w", x.SessionID, ctx.Err())
			}
			return err
		}
		log.Info("candidate arrived", "identity", id)
		x.CandidateArrived(ctx, j.room, id)
	} else if opts.ResumeID != "" {
		if err := x.Controller.Notice(ReconnectedNotice); err != nil {
			return err
		}
	}
	if err := x.Start(ctx); err != nil {
		if errors.Is(err, runtime.ErrExamOver) {
			return nil
		}
		return fmt.Errorf("start exam: %w", err)
	}
	log.Info("exam running", "exam", x.Spec.ID, "examiner", x.Examiner, "resumed", opts.ResumeID != "")
	go redeliver(ctx, rb)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		snap := x.Controller.Snapshot()
		r.mu.Lock()
		info.State, info.Node = snap.State, snap.NodeID
		r.mu.Unlock()
		if snap.State.Terminal() {
			log.Info("exam ended", "state", snap.State.String())
			return nil
		}
		select {
		case <-ctx.Done():
			log.Info("exam stopped; the session stays resumable", "state", snap.State.String())
			return fmt.Errorf("exam stopped before its end (session %s is resumable): %w", x.SessionID, ctx.Err())
		case _, ok := <-events:
			if !ok {
				return errors.New("the exam's event stream closed")
			}
		case <-tick.C:
		}
	}
}

// waitCandidate waits for the candidate, looking again every half second: a participant who
// joins in the instant the bot's own join completes can miss the room's arrival callback,
// while the room's participant list has them.
func waitCandidate(ctx context.Context, rb *app.RoomBot) (string, error) {
	for {
		wctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		id, err := rb.WaitCandidate(wctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return id, err
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return "", err
		}
	}
}

// redeliverAfter are the moments after the start at which the candidate is sent the exam's
// events again: a candidate who joined in the same instant as the bot may not yet receive
// data when the opening goes out, and would then wait for a question that never comes.
var redeliverAfter = []time.Duration{2 * time.Second, 6 * time.Second}

func redeliver(ctx context.Context, rb *app.RoomBot) {
	start := time.Now()
	for _, d := range redeliverAfter {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(start.Add(d))):
		}
		rb.Room.Replay(rb.Room.Candidate())
	}
}

// noCandidate holds when no candidate is in the room.
func noCandidate(ps []livekit.Participant) bool {
	for _, p := range ps {
		if p.Role == livekit.RoleCandidate {
			return false
		}
	}
	return true
}

// finish lets an exam that ended finish speaking, closes it (its last events reach the room;
// a session that did not end is left interrupted) and leaves the room.
func (r *Runner) finish(x *app.Exam, rb *app.RoomBot, log *slog.Logger) {
	if rb != nil && x.Controller.Snapshot().State.Terminal() {
		ctx, cancel := context.WithTimeout(context.Background(), closingSpeech)
		if err := rb.Bot.WaitIdle(ctx); err != nil {
			log.Warn("leaving before the examiner finished speaking", "err", err)
		}
		cancel()
		ctx, cancel = context.WithTimeout(context.Background(), endLinger)
		_ = rb.Room.WaitParticipants(ctx, noCandidate) // the deadline is the normal way out
		cancel()
	}
	if err := x.Close(); err != nil {
		log.Warn("close exam", "err", err)
	}
	if rb != nil {
		if err := rb.Close(); err != nil {
			log.Warn("leave room", "err", err)
		}
	}
}

// reject refuses a job before any exam opened: the error is the job's failure reason, and the
// room's metadata says so too (livekit.EncodeRejection), since that is where `examtui dispatch`
// and the control room can read it.
func (r *Runner) reject(ctx context.Context, a agent.Assignment, cause error, log *slog.Logger) error {
	err := fmt.Errorf("%w: %w", ErrRejected, cause)
	log.Warn("job rejected", "reason", cause)
	if r.cfg.APIKey == "" || r.cfg.APISecret == "" {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, rejectNoteTimeout)
	defer cancel()
	rooms := lksdk.NewRoomServiceClient(a.URL, r.cfg.APIKey, r.cfg.APISecret)
	if _, uerr := rooms.UpdateRoomMetadata(cctx, &lkproto.UpdateRoomMetadataRequest{Room: a.Room,
		Metadata: livekit.EncodeRejection(a.ID, err.Error())}); uerr != nil {
		log.Warn("job rejected: note on the room", "err", uerr)
	}
	return err
}

// rejectNoteTimeout bounds writing a refusal on the room.
const rejectNoteTimeout = 5 * time.Second

// Package app wires examtui's packages into a running exam: the compiled spec, an examiner,
// the session store and journal, the controller and its ticker. Commands and the console use
// it; it holds no exam logic.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// DemoSpec names the built-in demo exam wherever a spec path is expected.
const DemoSpec = "demo"

// Examiner kinds.
const (
	ExaminerAuto    = "auto" // the LLM when an endpoint is configured, else offline
	ExaminerOffline = "offline"
	ExaminerLLM     = "llm"
)

// ErrSpecInvalid is returned when the spec has errors; the diagnostics say which.
var ErrSpecInvalid = errors.New("the exam specification has errors")

// LoadSpec compiles a spec file, or the built-in demo for "" or "demo". Diagnostics (warnings
// included) are returned for the caller to print.
func LoadSpec(path string) (*spec.Exam, spec.Diagnostics, error) {
	if path == "" || path == DemoSpec {
		return spec.Compile(examples.DemoSpecName, examples.Demo())
	}
	return spec.CompileFile(path)
}

// NewExaminer builds the examiner of the given kind. "auto" picks the LLM when the llm stage
// has an endpoint (EXAMTUI_LLM_BASE_URL/_API_KEY, else OPENAI_BASE_URL/OPENAI_API_KEY), and the
// offline examiner otherwise.
func NewExaminer(kind, model string, log *slog.Logger) (runtime.Examiner, error) {
	return newExaminerWithLimits(kind, model, log, llm.Limits{})
}

func newLLMWithLimits(model string, log *slog.Logger, lim llm.Limits) (runtime.Examiner, error) {
	ep, err := endpoint.Resolve(endpoint.StageLLM)
	if err != nil {
		return nil, fmt.Errorf("LLM examiner: %w", err)
	}
	if !ep.Configured {
		return nil, fmt.Errorf("LLM examiner: %w (set EXAMTUI_LLM_BASE_URL or OPENAI_BASE_URL, and/or the key, or use --examiner offline)", llm.ErrNotConfigured)
	}
	opts := append(LLMOptions(ep), lim.Options()...)
	if model != "" {
		opts = append(opts, llm.WithModel(model))
	}
	if log != nil {
		opts = append(opts, llm.WithLogger(log))
		log.Info("llm endpoint", "endpoint", ep)
	}
	return llm.New(opts...)
}

// LLMOptions are the examiner options of the llm stage's endpoint (doctor checks the same).
func LLMOptions(ep endpoint.Endpoint) []llm.Option {
	// The stage's bounded client: its size cap and timeout cover the whole reply.
	opts := []llm.Option{llm.WithBaseURL(ep.BaseURL), llm.WithHTTPClient(ep.Client())}
	if ep.APIKey != "" {
		opts = append(opts, llm.WithAPIKey(ep.APIKey))
	}
	if ep.Model != "" {
		opts = append(opts, llm.WithModel(ep.Model))
	}
	return opts
}

// Options describe the exam to run.
type Options struct {
	SpecPath  string              // a spec file, or "" / "demo" for the built-in exam
	Examiner  string              // auto | offline | llm
	Model     string              // LLM model (overrides EXAMTUI_MODEL)
	Input     runtime.InputSource // typed | mic | room
	Candidate string
	// CandidateID attaches the session to this candidate of the store's roster (examtui
	// candidates import); the candidate's name is the roster's when Candidate is empty.
	CandidateID string
	DataDir     string // resolved data directory; empty with NoStore
	Store       string // the session store (StoreTarget): a data directory or a postgres:// URL; empty: DataDir
	NoStore     bool   // run without a session store (events are not kept)
	ResumeID    string // continue an interrupted session (an id or unique prefix)
	SessionID   string // the id of a new session (default: a random one)
	Logger      *slog.Logger
	// ExaminerOverride replaces the examiner built from Examiner (tests, custom wiring).
	ExaminerOverride runtime.Examiner
	// Limits bound a failing LLM examiner; zero fields come from the environment (and config
	// file), then the defaults (failover.go).
	Limits llm.Limits
	// ControllerOptions are appended to the controller's options.
	ControllerOptions []runtime.Option
	// Languages are the language packs the exam's language is looked up in (the config file's
	// LanguagePacks); nil: the shipped packs.
	Languages *lang.Registry
	// SharedStore is an open store to use instead of opening Store/DataDir (a worker's exams
	// share one, so their commits are grouped); Close leaves it open.
	SharedStore *sessions.Store
	// ManualTicks leaves ticking to the caller (Controller.Tick): a driver on a virtual clock
	// (runtime.WithClock in ControllerOptions) ticks when it advances the clock, so time-driven
	// decisions happen at the same virtual second as in a scripted run, never at a wall-clock
	// moment that races its turns.
	ManualTicks bool
}

// Exam is one running exam: controller, store and journal, ticker.
type Exam struct {
	Spec       *spec.Exam
	Controller *runtime.Controller
	Store      *sessions.Store // nil with NoStore
	Journal    *sessions.Journal
	SessionID  string
	Examiner   string
	Input      runtime.InputSource
	Diags      spec.Diagnostics

	log    *slog.Logger
	voice  atomic.Pointer[Voice] // the microphone path, when one is attached (voice.go)
	queue  *eventQueue
	fanout *runtime.Fanout
	// startMu orders Start's goroutines against a Close from another goroutine (a test's
	// cleanup, a signal): Close sees the cancel func Start set, and a Start after Close starts
	// nothing.
	startMu  sync.Mutex
	stopping bool
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	closed   sync.Once

	sharedStore bool            // Store belongs to the caller (Options.SharedStore)
	manualTicks bool            // Options.ManualTicks: Start runs no ticker
	history     []runtime.Event // a resumed session's stored events (History)

	meterOnce sync.Once
	meter     *speechMeter // the paid speech stages' usage, when a path uses one (speech_usage.go)
}

// Open compiles the spec (or loads the session to resume), opens the store and journal, and
// builds the controller. Nothing is started: call Start.
func Open(ctx context.Context, o Options) (x *Exam, err error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Input == "" {
		o.Input = runtime.SourceTyped
	}
	x = &Exam{log: log, queue: newEventQueue(), Input: o.Input, sharedStore: o.SharedStore != nil, manualTicks: o.ManualTicks}
	defer func() {
		if err != nil {
			x.Close()
			x = nil
		}
	}()

	var resumeEvents []runtime.Event
	if o.SharedStore != nil {
		x.Store = o.SharedStore
	} else if !o.NoStore {
		target := o.Store
		if target == "" {
			target = o.DataDir
		}
		if x.Store, err = OpenStore(ctx, target, log); err != nil {
			return x, err
		}
	}
	if o.ResumeID != "" {
		if x.Store == nil {
			return x, errors.New("--resume needs the session store")
		}
		id, err := x.Store.Resolve(ctx, o.ResumeID)
		if err != nil {
			return x, err
		}
		if x.Spec, resumeEvents, err = x.Store.ResumeData(ctx, id); err != nil {
			return x, err
		}
		x.SessionID = id
		x.history = resumeEvents
	} else {
		var diags spec.Diagnostics
		x.Spec, diags, err = LoadSpec(o.SpecPath)
		x.Diags = diags
		if err != nil {
			if errors.Is(err, spec.ErrInvalid) {
				return x, fmt.Errorf("%w:\n%s", ErrSpecInvalid, diagText(diags))
			}
			return x, err
		}
	}

	ex, exOpts, err := BuildExaminer(ExaminerSetup{Kind: o.Examiner, Model: o.Model, Limits: o.Limits, Override: o.ExaminerOverride}, log)
	if err != nil {
		return x, err
	}
	x.Examiner = ex.Name()

	var sink runtime.Sink
	var drawOpts []runtime.Option
	if x.Store != nil {
		if x.SessionID == "" {
			specPath := o.SpecPath
			if specPath == "" {
				specPath = DemoSpec
			}
			name := o.Candidate
			if o.CandidateID != "" {
				c, err := RosterCandidate(ctx, x.Store, o.CandidateID)
				if err != nil {
					return x, err
				}
				if name == "" {
					name = c.Name
				}
			}
			sess, err := x.Store.Create(ctx, sessions.Meta{
				ID: o.SessionID, Exam: x.Spec, Candidate: name, Examiner: x.Examiner,
				Input: o.Input, SpecPath: specPath,
			})
			if err != nil {
				return x, fmt.Errorf("create session: %w", err)
			}
			x.SessionID = sess.ID
			if o.CandidateID != "" {
				if err := x.Store.AttachCandidate(ctx, sess.ID, o.CandidateID); err != nil {
					return x, err
				}
			}
		}
		if x.Journal, err = x.Store.Journal(ctx, x.SessionID, sessions.WithSubscribers(x.queue)); err != nil {
			return x, err
		}
		sink = x.Journal
		// Balanced variant draws count this store's sessions (every path wires an exam here).
		drawOpts = []runtime.Option{runtime.WithVariantCounter(x.Store)}
	} else {
		x.SessionID = "ephemeral-" + time.Now().UTC().Format("20060102-150405")
		x.fanout = runtime.NewFanout(x.queue)
		sink = x.fanout
	}

	opts := []runtime.Option{
		runtime.WithSessionID(x.SessionID), runtime.WithSink(sink),
		runtime.WithLogger(log), runtime.WithInputSource(o.Input),
	}
	if resumeEvents != nil {
		opts = append(opts, runtime.WithResume(resumeEvents))
	}
	opts = append(opts, drawOpts...)
	opts = append(opts, exOpts...)
	if gateOpt, err := rehearsalGates(o.Input, log); err != nil {
		return x, err
	} else if gateOpt != nil {
		opts = append(opts, gateOpt)
	}
	if o.Languages != nil {
		opts = append(opts, runtime.WithLanguagePacks(o.Languages))
	}
	opts = append(opts, o.ControllerOptions...)
	if x.Controller, err = runtime.NewController(x.Spec, ex, opts...); err != nil {
		return x, err
	}
	return x, nil
}

// Subscribe adds a subscriber that sees every event after it is stored (e.g. a LiveKit room).
func (x *Exam) Subscribe(s runtime.Subscriber) {
	if x.Journal != nil {
		x.Journal.Subscribe(s)
	} else if x.fanout != nil {
		x.fanout.Subscribe(s)
	}
}

// History is what a resumed session had stored before this process: the console applies it
// before Events (tui.Historian), so it opens on the stored node, clocks, evidence and
// transcript. Events carries only what happens from now on. Nil for a new session.
func (x *Exam) History() []runtime.Event { return x.history }

// Events is the stream the console reads: every event, after it is stored.
func (x *Exam) Events() <-chan runtime.Event { return x.queue.C }

// Start starts (or resumes) the exam and its ticker, which stops with ctx or Close.
func (x *Exam) Start(ctx context.Context) error {
	if err := x.Controller.Start(ctx); err != nil {
		return err
	}
	x.startMu.Lock()
	defer x.startMu.Unlock()
	if x.stopping {
		return nil
	}
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	x.cancel = cancel
	if !x.manualTicks {
		x.wg.Add(1)
		go func() {
			defer x.wg.Done()
			if err := x.Controller.RunTicker(tctx, 200*time.Millisecond); err != nil && !errors.Is(err, context.Canceled) {
				x.log.Error("ticker stopped", "err", err)
			}
		}()
	}
	if x.Store != nil {
		x.wg.Add(1)
		go func() {
			defer x.wg.Done()
			x.consumeCommands(tctx)
		}()
	}
	return nil
}

// SubmitText hands a typed answer to the controller.
func (x *Exam) SubmitText(text string) error {
	return x.Controller.SubmitTurn(context.Background(), runtime.Turn{Text: text, Source: runtime.SourceTyped})
}

// Control applies pause | resume | skip | advance | end from the local examiner.
func (x *Exam) Control(action runtime.ControlAction) error {
	return x.Controller.Control(context.Background(), action, localSender())
}

// Admin sends an examiner instruction (immediate | queued) from the local examiner.
func (x *Exam) Admin(mode runtime.AdminMode, text string) error {
	return x.Controller.Admin(context.Background(), runtime.AdminInstruction{
		Mode: mode, Text: text, Sender: localSender(),
	})
}

// Close stops the ticker and the controller, commits every event and closes the store. A
// session that did not end stays resumable (interrupted).
func (x *Exam) Close() error {
	var errs []error
	x.closed.Do(func() {
		// The voice path first: its recordings are finished (and encrypted at rest) while the
		// store that lists them is still open. Closing it again later is a no-op.
		if vc := x.voice.Load(); vc != nil {
			if err := vc.Close(); err != nil {
				x.log.Warn("voice: close", "err", err)
			}
		}
		x.startMu.Lock()
		x.stopping = true
		if x.cancel != nil {
			x.cancel()
		}
		x.startMu.Unlock()
		x.wg.Wait()
		x.meterOnce.Do(func() {}) // orders the read of x.meter after a meter's start
		if x.meter != nil {
			x.meter.close() // before the controller closes, so the last requests are recorded
		}
		if x.Controller != nil {
			errs = append(errs, x.Controller.Close())
		}
		if x.Journal != nil {
			errs = append(errs, x.Journal.Close())
		}
		switch {
		case x.Store != nil && x.sharedStore:
			errs = append(errs, x.Store.Release(x.SessionID))
		case x.Store != nil:
			errs = append(errs, x.Store.Close())
		}
		x.queue.Close()
	})
	return errors.Join(errs...)
}

func localSender() string {
	if u := os.Getenv("USER"); u != "" {
		return "console:" + u
	}
	return "console"
}

func diagText(d spec.Diagnostics) string {
	var b strings.Builder
	for _, x := range d {
		b.WriteString(x.String())
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// Package roomcheck runs candidate scripts through a real LiveKit room (`examtui test
// --room-url`): the exam bot, a simulated candidate participant that types or speaks each line
// and listens to the replies, and an examiner participant that sends the script's controls and
// instructions. It measures the examiner's replies as a voice-agent test adapter does (first
// audio, tail silence, hard cap, timeouts with their phase) and checks the script's
// expectations exactly as a local run does.
package roomcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
	"github.com/examtui/examtui/transport/voicepath"
)

// Reply measurement defaults, as a voice-agent test adapter's: the reply ends after 0.6 s of
// silence (with examtui's bot, counted once the bot has said its lines are over: line_end), is
// cut at 30 s, and a reply that has not started 60 s after the turn is an error
// (time for a real STT → LLM → TTS round trip with retries).
const (
	DefaultTailSilence  = 600 * time.Millisecond
	DefaultMaxReply     = 30 * time.Second
	DefaultReplyTimeout = 60 * time.Second
	// BargeInLimit is how soon the examiner must fall silent once the candidate presses stop
	// (a native interruption): the room's way there and back.
	BargeInLimit = 400 * time.Millisecond
	// SpokenBargeInLimit is how soon the examiner must fall silent once the candidate speaks
	// over it: the voiced run must first pass the length a backchannel never has
	// (voicepath.DefaultBackchannelLength: an "mm-hmm" or a cough does not cut the line), then
	// 400 ms for the decision and the room's way there and back, as for a stop message.
	SpokenBargeInLimit = voicepath.DefaultBackchannelLength + 400*time.Millisecond
	// stepSettle bounds how long a control or an instruction may take to show in the events.
	stepSettle = 10 * time.Second
	// transportGrace is how long the candidate's connection may be down (reconnecting) before
	// the run ends with a transport error.
	transportGrace = 10 * time.Second
)

// Options configure a room run.
type Options struct {
	URL, APIKey, APISecret string
	// RecordDir receives candidate.wav and examiner.wav; empty: DataDir's recordings of the
	// session.
	RecordDir string
	DataDir   string
	// ReplyTimeout bounds the wait for a reply's first audio (and joining the room);
	// TailSilence ends a reply; MaxReply caps one.
	ReplyTimeout, TailSilence, MaxReply time.Duration
	// Spoken: the candidate speaks (espeak-ng into its microphone track, pocketsphinx on the
	// bot's side) instead of typing.
	Spoken bool
	// VoiceOptions tune the bot's voice path (end of turn, barge-in); nil: the adaptive end
	// of turn of `examtui run --room` (voicepath.EndAdaptive).
	VoiceOptions []voicepath.Option
	// Timings receives where each spoken reply's time went on the bot's side
	// (voicepath.WithTimings); nil: not measured.
	Timings func(voicepath.Timing)
	Logger  *slog.Logger
	// Events receives the voice events as JSON Lines while the run goes (--events); a write
	// that fails is logged and counted, never the end of the run. Nil: none.
	Events io.Writer
	// Interrupt is how interrupt steps interrupt: headless.InterruptNative (the stop message),
	// headless.InterruptTiming (speaking over the examiner; spoken runs only), or empty: native
	// in typed runs, timing in spoken ones (what a spoken run is there to test is the bot's
	// own barge-in).
	Interrupt string
}

// logger is the run's logger, or one that discards.
func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// WithDefaults fills zero durations with the defaults.
func (o Options) WithDefaults() Options {
	if o.ReplyTimeout == 0 {
		o.ReplyTimeout = DefaultReplyTimeout
	}
	if o.TailSilence == 0 {
		o.TailSilence = DefaultTailSilence
	}
	if o.MaxReply == 0 {
		o.MaxReply = DefaultMaxReply
	}
	return o
}

// Validate reports options out of range, naming the flag.
func (o Options) Validate() error {
	var probs []string
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--reply-timeout", o.ReplyTimeout}, {"--tail-silence", o.TailSilence}, {"--max-reply", o.MaxReply}} {
		if d.v <= 0 {
			probs = append(probs, fmt.Sprintf("%s must be a positive duration (got %s)", d.flag, d.v))
		}
	}
	if o.URL == "" {
		probs = append(probs, "--room-url is required")
	}
	switch o.Interrupt {
	case "", headless.InterruptNative, headless.InterruptTiming:
	default:
		probs = append(probs, fmt.Sprintf("--interrupt %q: want %s or %s", o.Interrupt, headless.InterruptNative, headless.InterruptTiming))
	}
	if o.APIKey == "" || o.APISecret == "" {
		probs = append(probs, "no credentials: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET (or --api-key, --api-secret)")
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidOption, strings.Join(probs, "; "))
	}
	return nil
}

// Run plays one script through a fresh room. A dead or unreachable server is a failed result
// whose opening timed out in the transport phase; an error is a run that could not start.
func Run(ctx context.Context, s *headless.Script, hopts headless.Options, o Options) (res *headless.Result, err error) {
	wallStart := time.Now()
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	log := o.logger()
	exam, err := s.CompileSpec()
	if err != nil {
		return nil, err
	}
	if err := s.CheckExam(exam); err != nil {
		return nil, err
	}
	kind := s.Examiner
	if kind == "" {
		kind = "offline"
	}
	if hopts.NewExaminer == nil {
		return nil, errors.New("room test: no examiner factory")
	}
	ex, exOpts, err := hopts.NewExaminer(kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	sid := hopts.SessionID
	if sid == "" {
		sid = "room-" + strings.TrimSuffix(filepath.Base(s.Name()), ".yaml")
	}
	rec := &runtime.Recorder{}
	fan := runtime.NewFanout(rec)
	if hopts.Sink != nil {
		fan.Chain(hopts.Sink)
	}
	copts := append([]runtime.Option{runtime.WithSink(fan), runtime.WithSessionID(sid), runtime.WithLogger(log),
		runtime.WithInputSource(runtime.SourceRoom)}, append(exOpts, hopts.ControllerOptions...)...)
	ctrl, err := runtime.NewController(exam, ex, copts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	defer ctrl.Close()
	if err := o.checkLanguage(ctrl.Language()); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}

	res = &headless.Result{Script: s.Name(), Spec: s.SpecPath(), Examiner: ex.Name(), SessionID: sid}
	mode := "typed"
	if o.Spoken {
		mode = "audio"
	}
	report := &headless.VoiceReport{Mode: mode, TailSilenceMs: o.TailSilence.Milliseconds(), MaxReplyMs: o.MaxReply.Milliseconds(),
		FirstChunkMs: o.ReplyTimeout.Milliseconds()}
	caps := liveKitCapabilities
	report.Transport, report.NativeInterrupt = caps.Transport, caps.NativeInterrupt
	report.Interruption, report.InterruptNote = caps.interruption(o.Interrupt, o.Spoken)
	events := newEventLog(o.Events, log, wallStart)
	defer func() {
		if res != nil && res.Voice != nil {
			res.Voice.EventsWritten, res.Voice.EventsFailed = events.counts()
		}
	}()
	rt, err := o.startBounded(ctx, s, exam.Policies.TurnTaking, ctrl, fan, log)
	if err != nil {
		if !errors.Is(err, ErrTransport) {
			return nil, err
		}
		// The server never answered: a failed run, with the phase in the report.
		report.Opening = &headless.ReplyTiming{Kind: "opening", Error: err.Error(),
			Timeout: &headless.ReplyTimeout{Phase: headless.PhaseTransport, AfterMs: ms(time.Since(wallStart))}}
		res.TurnsSkipped = len(s.Turns)
		res.Failures = append(res.Failures, headless.Failure{Expectation: "room", Expected: "a reachable LiveKit server", Actual: err.Error()})
		res.Voice = report
		res.WallTime = time.Since(wallStart)
		return res, nil
	}
	defer rt.close()

	dir := o.RecordDir
	if dir == "" {
		dir = app.RecordingDir(o.DataDir, sid)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recordings: %w", err)
	}
	recorder, err := audio.NewSessionRecorder(dir)
	if err != nil {
		return nil, err
	}
	rt.listener.setRecorder(recorder)
	report.CandidateWAV, report.ExaminerWAV = recorder.Path(audio.TrackCandidate), recorder.Path(audio.TrackExaminer)

	p := &player{o: o, s: s, ctrl: ctrl, rt: rt, recorder: recorder, res: res, report: report, events: events,
		clipDir: filepath.Join(dir, "replies"), interruption: report.Interruption}
	runErr := p.play(ctx)
	if cerr := recorder.Close(); cerr != nil && runErr == nil {
		runErr = cerr
	}
	if runErr != nil {
		return nil, runErr
	}
	report.Summarize()
	report.CandidateLeaks = rt.leaks()
	s.Evaluate(res, rec.Events(), ctrl.Snapshot())
	replies := report.Replies
	if report.Opening != nil {
		replies = append([]headless.ReplyTiming{*report.Opening}, replies...)
	}
	for _, rp := range replies {
		what := fmt.Sprintf("reply to step %d", rp.Step)
		if rp.Kind == "opening" {
			what = "the examiner's opening"
		}
		if rp.Error != "" {
			res.Failures = append(res.Failures, headless.Failure{Expectation: what, Expected: "examiner audio", Actual: rp.Error})
		}
		for _, c := range rp.CutOffs {
			if !c.Expected {
				res.Failures = append(res.Failures, headless.Failure{Expectation: fmt.Sprintf("step %d: no cut-off", rp.Step),
					Expected: "the examiner waits out the candidate's pause",
					Actual:   fmt.Sprintf("spoke %.0f ms into a %.0f ms pause", c.ExaminerAtMs-c.PauseAtMs, c.PauseMs)})
			}
		}
		if b := rp.BargeIn; b != nil && !b.Stopped {
			res.Failures = append(res.Failures, headless.Failure{Expectation: fmt.Sprintf("step %d: barge-in", rp.Step),
				Expected: fmt.Sprintf("the examiner stops within %.0f ms", b.LimitMs), Actual: fmt.Sprintf("%.0f ms", b.StoppedAfterMs)})
		}
	}
	if report.CandidateLeaks > 0 {
		res.Failures = append(res.Failures, headless.Failure{Expectation: "candidate audience",
			Expected: "no assessment event", Actual: fmt.Sprintf("%d events", report.CandidateLeaks)})
	}
	res.Passed = len(res.Failures) == 0
	res.Voice = report
	res.WallTime = time.Since(wallStart)
	return res, nil
}

// startBounded starts the room, giving up after the reply timeout even when the SDK's own
// join retries take longer: a dead server ends the run in time. A room that comes up after
// all is closed as soon as it does.
func (o Options) startBounded(ctx context.Context, s *headless.Script, tt *spec.ResolvedTurnTaking, ctrl *runtime.Controller, fan *runtime.Fanout, log *slog.Logger) (*room, error) {
	type started struct {
		rt  *room
		err error
	}
	ch := make(chan started, 1)
	sctx, cancel := context.WithCancel(ctx)
	go func() {
		rt, err := o.startRoom(sctx, s, tt, ctrl, fan, log)
		ch <- started{rt, err}
	}()
	t := time.NewTimer(o.ReplyTimeout + 500*time.Millisecond)
	defer t.Stop()
	select {
	case st := <-ch:
		cancel()
		return st.rt, st.err
	case <-t.C:
		cancel()
		go func() {
			if st := <-ch; st.err == nil {
				st.rt.close()
			}
		}()
		return nil, fmt.Errorf("%w: the server did not let the participants in within %s (phase=transport)", ErrTransport, o.ReplyTimeout)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkLanguage refuses a spoken check of an exam the harness cannot hear: the candidate's
// lines are spoken in the exam's language (the pack's espeak-ng voice), but the harness
// recognises them with pocketsphinx, which knows English only. A typed check runs in any
// language.
func (o Options) checkLanguage(p *lang.Pack) error {
	if !o.Spoken || lang.Base(p.Language) == "en" {
		return nil
	}
	return fmt.Errorf("%w: the exam is in %s (%s), and the harness hears the candidate with pocketsphinx, "+
		"which knows English only: run the room check typed (without --audio)", ErrSpokenLanguage, p.Name, p.Language)
}

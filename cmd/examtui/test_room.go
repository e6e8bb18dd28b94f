package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/sessions"
)

// Reply measurement defaults, as a voice-agent test adapter's: the reply ends after 0.6 s of
// silence, is cut at 30 s, and a reply that has not started 20 s after the turn is an error.
const (
	defaultTailSilence  = 600 * time.Millisecond
	defaultMaxReply     = 30 * time.Second
	defaultReplyTimeout = 20 * time.Second
	// voicedRMS separates the examiner's speech from the silence the track carries between
	// lines (decoded Opus silence is near zero; espeak-ng speech is in the thousands).
	voicedRMS = 500
	// stepSettle bounds how long a control or an instruction may take to show in the events.
	stepSettle = 10 * time.Second
)

// ErrFirstChunkTimeout means the examiner did not start replying in time.
var ErrFirstChunkTimeout = errors.New("first-chunk timeout")

// testRoomOptions is `examtui test --room-url URL`: the exam bot and a simulated candidate
// participant meet in a real LiveKit room.
type testRoomOptions struct {
	url          string
	key          string
	secret       string
	record       string
	replyTimeout time.Duration
	tail         time.Duration
	maxReply     time.Duration
	audioFlag    func() bool // reads --audio, which test_audio.go owns
}

func (r *testRoomOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.url, "room-url", "", "run each script through a LiveKit server at this URL: the exam bot and a simulated candidate (typed turns, or spoken with --audio) meet in a fresh room")
	f.StringVar(&r.key, "api-key", "", "with --room-url, the LiveKit API key (default $LIVEKIT_API_KEY)")
	f.StringVar(&r.secret, "api-secret", "", "with --room-url, the LiveKit API secret (default $LIVEKIT_API_SECRET)")
	f.StringVar(&r.record, "record", "", "with --room-url, write candidate.wav and examiner.wav here (default <data-dir>/sessions/<session>, or a take-N folder in it when it holds a recording)")
	f.DurationVar(&r.replyTimeout, "reply-timeout", defaultReplyTimeout, "with --room-url, the longest wait for the first audio of an examiner reply")
	f.DurationVar(&r.tail, "tail-silence", defaultTailSilence, "with --room-url, the silence that ends an examiner reply")
	f.DurationVar(&r.maxReply, "max-reply", defaultMaxReply, "with --room-url, the hard cap on one examiner reply")
	r.audioFlag = func() bool {
		v, err := cmd.Flags().GetBool("audio")
		return err == nil && v
	}
}

func (r testRoomOptions) enabled() bool { return r.url != "" }

// run plays one script through a real room: a controller on the wall clock behind the exam
// bot, a candidate participant that types (or, with --audio, speaks) each say step and listens
// to the replies, and an examiner participant that sends the script's controls and
// instructions. Expectations are checked as for a local run.
func (r testRoomOptions) run(ctx context.Context, s *headless.Script, opts headless.Options, log *slog.Logger) (*headless.Result, error) {
	wallStart := time.Now()
	if r.key == "" {
		r.key = os.Getenv("LIVEKIT_API_KEY")
	}
	if r.secret == "" {
		r.secret = os.Getenv("LIVEKIT_API_SECRET")
	}
	if r.key == "" || r.secret == "" {
		return nil, errors.New("--room-url: no credentials: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET (or --api-key, --api-secret)")
	}
	spoken := r.audioFlag != nil && r.audioFlag()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
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
	newEx := opts.NewExaminer
	if newEx == nil {
		return nil, errors.New("--room-url: no examiner factory")
	}
	ex, err := newEx(kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	sid := opts.SessionID
	if sid == "" {
		sid = "room-" + strings.TrimSuffix(filepath.Base(s.Name()), ".yaml")
	}

	rec := &runtime.Recorder{}
	fan := runtime.NewFanout(rec)
	if opts.Sink != nil {
		fan.Chain(opts.Sink)
	}
	copts := append([]runtime.Option{runtime.WithSink(fan), runtime.WithSessionID(sid), runtime.WithLogger(log),
		runtime.WithInputSource(runtime.SourceRoom)}, opts.ControllerOptions...)
	ctrl, err := runtime.NewController(exam, ex, copts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	defer ctrl.Close()

	rt, err := r.startRoom(ctx, s, ctrl, fan, spoken, log)
	if err != nil {
		return nil, err
	}
	defer rt.close()

	dir := r.record
	if dir == "" {
		dataDir, err := sessions.DataDir(globals.dataDir)
		if err != nil {
			return nil, err
		}
		dir = app.RecordingDir(dataDir, sid)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recordings: %w", err)
	}
	recorder, err := audio.NewSessionRecorder(dir)
	if err != nil {
		return nil, err
	}
	rt.listener.setRecorder(recorder)

	res := &headless.Result{Script: s.Name(), Spec: s.SpecPath(), Examiner: ex.Name(), SessionID: sid}
	mode := "typed"
	if spoken {
		mode = "audio"
	}
	report := &headless.VoiceReport{Mode: mode, TailSilenceMs: r.tail.Milliseconds(), MaxReplyMs: r.maxReply.Milliseconds(),
		FirstChunkMs: r.replyTimeout.Milliseconds(),
		CandidateWAV: recorder.Path(audio.TrackCandidate), ExaminerWAV: recorder.Path(audio.TrackExaminer)}

	runErr := r.play(ctx, s, ctrl, rt, recorder, res, report)
	if cerr := recorder.Close(); cerr != nil && runErr == nil {
		runErr = cerr
	}
	if runErr != nil {
		return nil, runErr
	}
	report.Summarize()
	report.CandidateLeaks = rt.leaks()
	s.Evaluate(res, rec.Events(), ctrl.Snapshot())
	for _, rp := range report.Replies {
		if rp.Error != "" {
			res.Failures = append(res.Failures, headless.Failure{Expectation: fmt.Sprintf("reply to step %d", rp.Step),
				Expected: "examiner audio", Actual: rp.Error})
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

// play runs the script's steps; an error is a run that could not go on.
func (r testRoomOptions) play(ctx context.Context, s *headless.Script, ctrl *runtime.Controller, rt *roomTest,
	recorder *audio.SessionRecorder, res *headless.Result, report *headless.VoiceReport) error {
	started := time.Now()
	if err := ctrl.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	// The examiner's opening lines are heard out before the candidate speaks.
	if _, _, _, err := rt.listener.awaitReply(ctx, started, r.replyTimeout, r.tail, r.maxReply); err != nil {
		return fmt.Errorf("the examiner's opening: %w", err)
	}
	for i, t := range s.Turns {
		if ctrl.Snapshot().State.Terminal() {
			res.TurnsSkipped = len(s.Turns) - i
			break
		}
		step := i + 1
		switch {
		case t.Say != nil:
			var sent time.Time
			if rt.mic != nil {
				pcm, err := rt.speech(ctx, *t.Say)
				if err != nil {
					return fmt.Errorf("step %d: %w", step, err)
				}
				if sent, err = rt.mic.say(ctx, pcm); err != nil {
					return fmt.Errorf("step %d: %w", step, err)
				}
				if err := recorder.Write(audio.TrackCandidate, pcm); err != nil {
					return err
				}
			} else {
				conf := 1.0
				if t.Confidence != nil {
					conf = *t.Confidence
				}
				sent = time.Now()
				if err := rt.cand.SendCandidateText(ctx, *t.Say, conf); err != nil {
					return fmt.Errorf("step %d: %w", step, err)
				}
			}
			lat, dur, capped, err := rt.listener.awaitReply(ctx, sent, r.replyTimeout, r.tail, r.maxReply)
			rp := headless.ReplyTiming{Step: step, Said: *t.Say, LatencyMs: ms(lat), AudioMs: ms(dur), Capped: capped}
			res.TurnsRun++
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				rp.Error = err.Error()
				report.Replies = append(report.Replies, rp)
				// Without the reply the conversation is out of step: stop, as the adapter does.
				res.TurnsSkipped = len(s.Turns) - step
				return nil
			}
			report.Replies = append(report.Replies, rp)
		case t.Wait != nil, t.Silence != nil:
			d := time.Duration(*firstNonNil(t.Wait, t.Silence) * float64(time.Second))
			if err := sleepCtx(ctx, d); err != nil {
				return err
			}
			res.TurnsRun++
			if err := rt.settle(ctx, time.Now().Add(-d), r); err != nil {
				return err
			}
		case t.Control != nil, t.Admin != nil:
			before := time.Now()
			from := rt.lastSeq()
			var err error
			if t.Control != nil {
				var a livekit.ControlAction
				if a, err = livekit.ParseControlAction(*t.Control); err == nil {
					err = rt.exr.SendControl(ctx, a)
				}
			} else {
				var m livekit.AdminMode
				if m, err = livekit.ParseAdminMode(t.Admin.Mode); err == nil {
					err = rt.exr.SendAdmin(ctx, m, t.Admin.Text)
				}
			}
			res.TurnsRun++
			if err != nil {
				res.StepErrors = append(res.StepErrors, fmt.Sprintf("turn %d (%s): %v", step, t.Kind(), err))
				continue
			}
			if !rt.waitSeqAfter(ctx, from, stepSettle) {
				res.StepErrors = append(res.StepErrors, fmt.Sprintf("turn %d (%s): no event within %s", step, t.Kind(), stepSettle))
			}
			if err := rt.settle(ctx, before, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// settle hears out any speech that started after since (a control's acknowledgement, a time
// warning), so the next step does not talk over it.
func (rt *roomTest) settle(ctx context.Context, since time.Time, r testRoomOptions) error {
	_, _, _, err := rt.listener.awaitReply(ctx, since, 1500*time.Millisecond, r.tail, r.maxReply)
	if errors.Is(err, ErrFirstChunkTimeout) {
		return nil // nothing was said
	}
	return err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func firstNonNil(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// roomTest is one script's room: the bot, the candidate and the examiner participants.
type roomTest struct {
	room     *livekit.Room
	bot      *livekit.Bot
	voice    *livekit.RoomVoice
	cand     *livekit.Client
	exr      *livekit.Client
	listener *replyListener
	mic      *micPump
	synth    audio.Synthesizer
	closers  []func()
	stop     context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	seq     int64
	seqCh   chan struct{}
	leakCnt int
}

func randomRoomName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "examtui-test-" + hex.EncodeToString(b)
}

// startRoom joins the bot, the candidate and an examiner to a fresh room and waits until each
// sees the others and the candidate hears the bot's track.
func (r testRoomOptions) startRoom(ctx context.Context, s *headless.Script, ctrl *runtime.Controller, fan *runtime.Fanout,
	spoken bool, log *slog.Logger) (rt *roomTest, err error) {
	rt = &roomTest{seqCh: make(chan struct{})}
	defer func() {
		if err != nil {
			rt.close()
		}
	}()
	name := randomRoomName()
	jctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	room, err := livekit.Join(jctx, livekit.Config{URL: r.url, APIKey: r.key, APISecret: r.secret, Room: name, Identity: defaultBotIdentity},
		livekit.WithLogger(log), livekit.WithSpeechSampleRate(app.BotSpeechRate))
	if err != nil {
		return rt, fmt.Errorf("bot: %w", err)
	}
	rt.room = room
	rt.closers = append(rt.closers, func() { room.Close() })
	synth, err := audio.NewEspeak(audio.WithEspeakLogger(log))
	if err != nil {
		return rt, fmt.Errorf("examiner voice: %w", err)
	}
	rt.synth = synth
	var recog audio.Recognizer
	if spoken {
		// A fixed grammar of the script's own lines: pocketsphinx is exact on a small grammar
		// and useless in free dictation (toolchain-notes.md).
		sph, err := audio.NewSphinx(s.Said())
		if err != nil {
			return rt, fmt.Errorf("recogniser: %w", err)
		}
		rt.closers = append(rt.closers, func() { sph.Close() })
		recog = sph
	}
	rv, err := livekit.NewRoomVoice(room, recog, synth, livekit.WithRoomVoiceLogger(log),
		livekit.WithVoiceEvents(func(e audio.Event) {
			switch e.Kind {
			case audio.EventSpeechStarted:
				ctrl.UserActivity(true)
			case audio.EventSpeechEnded:
				ctrl.UserActivity(false)
			}
		}))
	if err != nil {
		return rt, err
	}
	rt.voice = rv
	botOpts := []livekit.BotOption{livekit.WithSpeaker(rv.Say), livekit.WithBotLogger(log)}
	if spoken {
		botOpts = append(botOpts, livekit.WithAudioTurns(rv.Turns))
	}
	bot, err := livekit.NewBot(room, ctrl, botOpts...)
	if err != nil {
		return rt, err
	}
	rt.bot = bot
	rv.OnBargeIn(bot.Interrupt)
	fan.Subscribe(bot)

	candTok, err := livekit.NewToken(r.key, r.secret, name, "candidate", livekit.RoleCandidate)
	if err != nil {
		return rt, err
	}
	exTok, err := livekit.NewToken(r.key, r.secret, name, "examiner", livekit.RoleExaminer)
	if err != nil {
		return rt, err
	}
	var copts []livekit.ClientOption
	copts = append(copts, livekit.WithClientLogger(log))
	if spoken {
		copts = append(copts, livekit.WithMicrophone(audio.SampleRate))
	}
	if rt.cand, err = livekit.Dial(jctx, r.url, candTok, copts...); err != nil {
		return rt, fmt.Errorf("candidate: %w", err)
	}
	if rt.exr, err = livekit.Dial(jctx, r.url, exTok, livekit.WithClientLogger(log)); err != nil {
		return rt, fmt.Errorf("examiner: %w", err)
	}
	for _, c := range []*livekit.Client{rt.cand, rt.exr} {
		if err := c.WaitBot(jctx); err != nil {
			return rt, err
		}
	}
	for {
		seen := map[string]bool{}
		for _, p := range room.Participants() {
			seen[p.Identity] = true
		}
		if seen["candidate"] && seen["examiner"] {
			break
		}
		if err := sleepCtx(jctx, 20*time.Millisecond); err != nil {
			return rt, fmt.Errorf("the bot never saw both participants: %w", err)
		}
	}

	lctx, stop := context.WithCancel(context.Background())
	rt.stop = stop
	rt.listener = newReplyListener()
	rt.wg.Add(3)
	go func() { defer rt.wg.Done(); rt.listener.run(lctx, rt.cand.Audio()) }()
	go func() { defer rt.wg.Done(); rt.watchCandidate(lctx) }()
	go func() { defer rt.wg.Done(); rt.watchExaminer(lctx) }()
	if spoken {
		rt.mic = newMicPump(rt.cand.Voice())
		rt.wg.Add(1)
		go func() { defer rt.wg.Done(); rt.mic.run(lctx) }()
	}
	if err := rt.listener.waitTrack(jctx); err != nil {
		return rt, fmt.Errorf("the candidate never received the bot's audio track: %w", err)
	}
	return rt, nil
}

// speech synthesises the candidate's line at 16 kHz (espeak-ng), as the candidate would say it.
func (rt *roomTest) speech(ctx context.Context, text string) ([]int16, error) {
	c, err := rt.synth.Synthesize(ctx, text, audio.SpeakOptions{Voice: "en-us"})
	if err != nil {
		return nil, err
	}
	c16, err := c.To16k()
	if err != nil {
		return nil, err
	}
	return c16.Samples, nil
}

// watchCandidate counts events the candidate receives outside its view: the hidden-audience
// rule checked from the candidate's side.
func (rt *roomTest) watchCandidate(ctx context.Context) {
	allowed := map[runtime.EventType]bool{runtime.EventExamState: true, runtime.EventNodeEntered: true,
		runtime.EventTimeWarning: true, runtime.EventCommandAcknowledged: true, runtime.EventSpoken: true, runtime.EventExamCompleted: true}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-rt.cand.Events():
			if !allowed[ev.Event] {
				rt.mu.Lock()
				rt.leakCnt++
				rt.mu.Unlock()
			}
		}
	}
}

// watchExaminer tracks the highest seq the examiner has received, to know when a control or an
// instruction has taken effect.
func (rt *roomTest) watchExaminer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-rt.exr.Events():
			rt.mu.Lock()
			if ev.Seq > rt.seq {
				rt.seq = ev.Seq
				close(rt.seqCh)
				rt.seqCh = make(chan struct{})
			}
			rt.mu.Unlock()
		}
	}
}

func (rt *roomTest) lastSeq() int64 {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.seq
}

func (rt *roomTest) leaks() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.leakCnt
}

// waitSeqAfter waits until the examiner has received an event after seq.
func (rt *roomTest) waitSeqAfter(ctx context.Context, seq int64, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		rt.mu.Lock()
		cur, ch := rt.seq, rt.seqCh
		rt.mu.Unlock()
		if cur > seq {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-ch:
		}
	}
}

func (rt *roomTest) close() {
	if rt.stop != nil {
		rt.stop()
	}
	rt.wg.Wait()
	if rt.bot != nil {
		rt.bot.Close()
	}
	if rt.voice != nil {
		rt.voice.Close()
	}
	for _, c := range []*livekit.Client{rt.cand, rt.exr} {
		if c != nil {
			c.Close()
		}
	}
	for i := len(rt.closers) - 1; i >= 0; i-- {
		rt.closers[i]()
	}
}

// replyListener is the candidate's ear: it consumes the bot's decoded audio, records it, and
// notes when it was voiced.
type replyListener struct {
	mu       sync.Mutex
	recorder *audio.SessionRecorder
	frames   int
	voiced   []time.Time // receive times of voiced frames, in order
	changed  chan struct{}
}

func newReplyListener() *replyListener { return &replyListener{changed: make(chan struct{})} }

func (l *replyListener) setRecorder(r *audio.SessionRecorder) {
	l.mu.Lock()
	l.recorder = r
	l.mu.Unlock()
}

func (l *replyListener) run(ctx context.Context, frames <-chan livekit.AudioFrame) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-frames:
			l.mu.Lock()
			l.frames++
			if rmsOf(f.Samples) > voicedRMS {
				l.voiced = append(l.voiced, f.Received)
			}
			rec := l.recorder
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
			if rec != nil {
				_ = rec.Write(audio.TrackExaminer, f.Samples)
			}
		}
	}
}

// waitTrack waits for the first frame of the bot's track.
func (l *replyListener) waitTrack(ctx context.Context) error {
	for {
		l.mu.Lock()
		n, ch := l.frames, l.changed
		l.mu.Unlock()
		if n > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// awaitReply waits for the first voiced audio after since (at most firstTimeout), then for the
// reply to end (tail of silence) or reach the cap. It returns the latency to the first audio
// and how long the reply lasted.
func (l *replyListener) awaitReply(ctx context.Context, since time.Time, firstTimeout, tail, maxReply time.Duration) (latency, dur time.Duration, capped bool, err error) {
	var first time.Time
	deadline := time.Now().Add(firstTimeout)
	for first.IsZero() {
		l.mu.Lock()
		for _, at := range l.voiced {
			if at.After(since) {
				first = at
				break
			}
		}
		ch := l.changed
		l.mu.Unlock()
		if !first.IsZero() {
			break
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return 0, 0, false, fmt.Errorf("%w: the examiner did not send its first audio within %s (phase=first-chunk)", ErrFirstChunkTimeout, firstTimeout)
		}
		if err := waitChange(ctx, ch, wait); err != nil {
			return 0, 0, false, err
		}
	}
	for {
		l.mu.Lock()
		last := l.voiced[len(l.voiced)-1]
		ch := l.changed
		l.mu.Unlock()
		now := time.Now()
		if now.Sub(first) >= maxReply {
			return first.Sub(since), last.Sub(first) + 20*time.Millisecond, true, nil
		}
		if now.Sub(last) >= tail {
			return first.Sub(since), last.Sub(first) + 20*time.Millisecond, false, nil
		}
		if err := waitChange(ctx, ch, min(tail-now.Sub(last), maxReply-now.Sub(first))); err != nil {
			return 0, 0, false, err
		}
	}
}

func waitChange(ctx context.Context, ch <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-t.C:
	}
	return nil
}

func rmsOf(s []int16) float64 {
	if len(s) == 0 {
		return 0
	}
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(s)))
}

// micPump writes the candidate's microphone in real time, 20 ms at a time: queued speech, and
// silence in between, as a live microphone would (the bot's endpointing needs the silence).
type micPump struct {
	v    *livekit.Voice
	mu   sync.Mutex
	q    []int16
	done chan struct{} // closed when the queue empties
}

func newMicPump(v *livekit.Voice) *micPump { return &micPump{v: v} }

func (m *micPump) run(ctx context.Context) {
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	silence := make([]int16, audio.FrameSamples)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		m.mu.Lock()
		chunk := silence
		if len(m.q) > 0 {
			n := min(len(m.q), audio.FrameSamples)
			chunk = append([]int16(nil), m.q[:n]...)
			m.q = m.q[n:]
			if len(m.q) == 0 && m.done != nil {
				close(m.done)
				m.done = nil
			}
		}
		m.mu.Unlock()
		_ = m.v.Write(chunk)
	}
}

// say queues pcm and returns when its last sample has been written: the end of the turn.
func (m *micPump) say(ctx context.Context, pcm []int16) (time.Time, error) {
	done := make(chan struct{})
	m.mu.Lock()
	m.q = append(m.q, pcm...)
	m.done = done
	m.mu.Unlock()
	select {
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-done:
		return time.Now(), nil
	}
}

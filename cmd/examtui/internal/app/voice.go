package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// Named errors of the local voice path.
var (
	// ErrNoVoice is returned by SwitchInput on an exam started without a voice path.
	ErrNoVoice = errors.New("spoken answers need the microphone path (run with --mic)")
	// ErrNoMicrophone is returned by SwitchInput when the voice path has no microphone or no
	// speech recogniser; the detail says which and what to do.
	ErrNoMicrophone = errors.New("spoken answers are unavailable")
	// ErrVoiceConfig is returned by StartVoice given parts or options it cannot use.
	ErrVoiceConfig = errors.New("invalid voice configuration")
)

// VoiceParts are the pieces of a local voice path. Source and Recognizer come together (the
// candidate speaks), Synthesizer and Sink together (the examiner speaks); either pair may be
// missing, not both. StartVoice takes ownership of Source and Sink.
type VoiceParts struct {
	Source      audio.Source
	Recognizer  audio.Recognizer
	Synthesizer audio.Synthesizer
	Sink        audio.Sink
}

type voiceConfig struct {
	endpoint  audio.EndpointConfig
	bargeIn   bool
	recordDir string
	status    string
	voice     string
	speed     float64
	detector  bool
	adaptive  bool
	log       *slog.Logger
	meterEach int
}

// VoiceOption configures StartVoice.
type VoiceOption func(*voiceConfig) error

// WithVoiceEndpointing sets the VAD and endpointing (zero: LiveKit's 0.5 s / 3 s defaults).
func WithVoiceEndpointing(c audio.EndpointConfig) VoiceOption {
	return func(v *voiceConfig) error { v.endpoint = c; return nil }
}

// WithVoiceBargeIn lets the candidate interrupt the examiner (headphones); the default is
// half duplex, the microphone gated while the examiner speaks.
func WithVoiceBargeIn(on bool) VoiceOption {
	return func(v *voiceConfig) error { v.bargeIn = on; return nil }
}

// WithVoiceRecording records both sides of the session as aligned WAV files in dir (see
// RecordingDir) and lists them on the stored session.
func WithVoiceRecording(dir string) VoiceOption {
	return func(v *voiceConfig) error {
		if strings.TrimSpace(dir) == "" {
			return fmt.Errorf("%w: empty recording directory", ErrVoiceConfig)
		}
		v.recordDir = dir
		return nil
	}
}

// WithVoiceStatus is what the console's meter says while a part is missing (no microphone,
// no recogniser), so the console can open with typed input and say why.
func WithVoiceStatus(s string) VoiceOption {
	return func(v *voiceConfig) error { v.status = s; return nil }
}

// WithVoiceDefault is the examiner's voice when the node's persona names none (an espeak-ng
// voice such as "en-gb", or an OpenAI voice such as "alloy").
func WithVoiceDefault(name string) VoiceOption {
	return func(v *voiceConfig) error { v.voice = strings.TrimSpace(name); return nil }
}

// WithVoiceSpeed scales the examiner's speaking rate (1 normal; 0.5..2): a faster examiner
// for quick rehearsals, a slower one for beginners. slow_down applies on top of it.
func WithVoiceSpeed(f float64) VoiceOption {
	return func(v *voiceConfig) error {
		if math.IsNaN(f) || f < audio.MinSpeed || f > audio.MaxSpeed {
			return fmt.Errorf("%w: speed %v (want %v..%v)", ErrVoiceConfig, f, audio.MinSpeed, audio.MaxSpeed)
		}
		v.speed = f
		return nil
	}
}

// WithVoiceTurnDetector transcribes the turn so far whenever the candidate pauses and, when
// the words stop mid-thought ("…and", "because"), waits up to MaxEndpointingDelay instead of
// MinEndpointingDelay (audio.LooksUnfinished). It costs one extra recognition per pause.
func WithVoiceTurnDetector(on bool) VoiceOption {
	return func(v *voiceConfig) error { v.detector = on; return nil }
}

// WithVoiceAdaptiveEndOfTurn is the adaptive end of turn that rooms use (AdaptiveTurnTaking),
// in place of WithVoiceTurnDetector: at each pause the words so far are recognised (and shown
// as the interim transcript); a complete answer ends the turn after the short delay, a
// trailing one waits up to MaxEndpointingDelay; and the examiner starts on a complete answer
// during the wait (Controller.Speculate), its reply kept only if the final turn is the same.
func WithVoiceAdaptiveEndOfTurn(on bool) VoiceOption {
	return func(v *voiceConfig) error { v.adaptive = on; return nil }
}

// WithVoiceLogger sets the logger.
func WithVoiceLogger(l *slog.Logger) VoiceOption {
	return func(v *voiceConfig) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrVoiceConfig)
		}
		v.log = l
		return nil
	}
}

// Voice is the local voice path of one exam: candidate speech → VAD and endpointing → STT →
// the controller's turns; the examiner's spoken events → TTS by sentence → the speaker; and
// the console's level meter. Close it before the exam.
type Voice struct {
	x   *Exam
	v   *audio.Voice
	cfg voiceConfig
	log *slog.Logger
	rec *audio.SessionRecorder

	levelMu   sync.RWMutex // Close holds it to close levels; senders hold it shared
	levelsOff bool
	levels    chan tui.AudioLevelMsg
	turns     chan audio.FinalTranscript
	activity  chan bool
	wake      chan struct{}

	mu     sync.Mutex // guards queue and nodeID
	queue  []spokenLine
	nodeID string

	pending  atomic.Int64  // examiner lines queued or playing
	frames   atomic.Uint64 // level events seen, for the meter's rate
	ttsFirst atomic.Uint64 // math.Float64bits of the latest TTS first-audio latency (ms)
	heard    atomic.Pointer[audio.SpeakResult]

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// spokenLine is one piece of examiner speech waiting to be played.
type spokenLine struct {
	text  string
	opts  audio.SpeakOptions
	lines int // events joined into text
}

// StartVoice attaches a voice path to x and starts it; call it before x.Start so the
// examiner's first lines are spoken. With a microphone and a recogniser, x.Input becomes
// "mic" and recognised turns reach the controller as mic turns.
func StartVoice(ctx context.Context, x *Exam, parts VoiceParts, opts ...VoiceOption) (*Voice, error) {
	if x == nil || x.Controller == nil {
		return nil, fmt.Errorf("%w: no exam", ErrVoiceConfig)
	}
	cfg := voiceConfig{endpoint: audio.DefaultEndpointConfig(), log: slog.New(slog.DiscardHandler), meterEach: 4, speed: 1}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	vc := &Voice{x: x, cfg: cfg, log: cfg.log,
		levels: make(chan tui.AudioLevelMsg, 32), turns: make(chan audio.FinalTranscript, 8),
		activity: make(chan bool, 8), wake: make(chan struct{}, 1)}
	vopts := []audio.VoiceOption{
		audio.WithVoiceEndpointing(cfg.endpoint), audio.WithBargeIn(cfg.bargeIn),
		audio.WithOnEvent(vc.onEvent), audio.WithOnTranscript(vc.onTranscript), audio.WithVoiceLogger(cfg.log),
	}
	trailing := TrailingWords(x.Controller.Language()) // the exam's language's end-of-turn words
	if cfg.adaptive {
		vopts = append(vopts, audio.WithVoiceEndpointing(adaptiveEndpoint(cfg.endpoint)),
			audio.WithTurnClassifier(func(partial string) audio.TurnEnd {
				if err := x.Controller.Interim(partial, 0); err != nil {
					vc.log.Debug("voice: interim transcript", "err", err)
				}
				return trailing.ClassifyTurn(partial)
			}),
			audio.WithSpeculation(vc.speculate))
	} else if cfg.detector {
		// The turn so far, transcribed at each pause, doubles as the console's interim text.
		vopts = append(vopts, audio.WithTurnDetector(func(partial string) bool {
			if err := x.Controller.Interim(partial, 0); err != nil {
				vc.log.Debug("voice: interim transcript", "err", err)
			}
			return trailing.LooksUnfinished(partial)
		}))
	}
	if cfg.recordDir != "" {
		rec, err := audio.NewSessionRecorder(cfg.recordDir)
		if err != nil {
			closeParts(parts)
			return nil, err
		}
		vc.rec = rec
		vopts = append(vopts, audio.WithRecorder(rec))
	}
	rec, synth := x.meterSpeech(parts.Recognizer, parts.Synthesizer)
	v, err := audio.NewVoice(parts.Source, rec, synth, parts.Sink, vopts...)
	if err != nil {
		closeParts(parts)
		if vc.rec != nil {
			_ = vc.rec.Close()
		}
		return nil, err
	}
	vc.v = v
	if vc.rec != nil && x.Store != nil {
		paths := []string{vc.rec.Path(audio.TrackCandidate), vc.rec.Path(audio.TrackExaminer)}
		if err := x.Store.SetRecordings(ctx, x.SessionID, paths); err != nil {
			vc.log.Warn("voice: listing the recordings on the session", "err", err)
		}
	}
	vc.ctx, vc.cancel = context.WithCancel(context.WithoutCancel(ctx))
	x.voice.Store(vc)
	if v.CanListen() {
		x.Input = runtime.SourceMic
		// Turns go to the controller one at a time (SubmitTurn waits for the examiner, which may
		// be an LLM call); activity is reported off the capture loop, because the controller's
		// lock may be held while it stores events.
		goReceive(vc, vc.turns, vc.submitTurn)
		goReceive(vc, vc.activity, vc.x.Controller.UserActivity) // beats hold off meanwhile
	}
	if v.CanSpeak() {
		x.Subscribe(runtime.SubscriberFunc(vc.deliver))
		goReceive(vc, vc.wake, func(struct{}) { vc.speakLines() })
	}
	if err := v.Start(vc.ctx); err != nil {
		vc.cancel()
		vc.wg.Wait()
		x.voice.Store(nil)
		_ = v.Close()
		if vc.rec != nil {
			_ = vc.rec.Close()
		}
		return nil, err
	}
	vc.meter(0)
	vc.log.Info("voice started", "listen", v.CanListen(), "speak", v.CanSpeak(), "bargeIn", cfg.bargeIn,
		"minEndpointing", cfg.endpoint.MinEndpointingDelay, "maxEndpointing", cfg.endpoint.MaxEndpointingDelay,
		"recording", cfg.recordDir, "status", cfg.status)
	return vc, nil
}

func closeParts(p VoiceParts) {
	if p.Source != nil {
		_ = p.Source.Close()
	}
	if p.Sink != nil {
		_ = p.Sink.Close()
	}
}

// RecordingDir is where a session's audio goes: <data-dir>/sessions/<id>/, or a numbered
// take-N folder inside it when an earlier run of the session (before a resume) left files.
func RecordingDir(dataDir, sessionID string) string {
	dir := filepath.Join(dataDir, "sessions", sessionID)
	if _, err := os.Stat(filepath.Join(dir, audio.TrackCandidate.String()+".wav")); err != nil {
		return dir
	}
	for n := 2; ; n++ {
		d := filepath.Join(dir, fmt.Sprintf("take-%d", n))
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			return d
		}
	}
}

// TUIOptions feed the console's audio meter.
func (vc *Voice) TUIOptions() []tui.Option { return []tui.Option{tui.WithAudioLevels(vc.Levels())} }

// Levels is the meter feed: the input level (0..1) and the voice state, about 12 times a
// second and on every state change; closed by Close. Readings are dropped, never queued,
// when the reader is behind.
func (vc *Voice) Levels() <-chan tui.AudioLevelMsg { return vc.levels }

// Audio is the running pipeline (stats, state).
func (vc *Voice) Audio() *audio.Voice { return vc.v }

// Recorder is the session recorder, nil when not recording.
func (vc *Voice) Recorder() *audio.SessionRecorder { return vc.rec }

// LastHeard is what the candidate actually heard of the latest examiner line that was
// interrupted (barge-in, pause, immediate instruction); nil when none was.
func (vc *Voice) LastHeard() *audio.SpeakResult { return vc.heard.Load() }

// Idle reports that no examiner line is queued or playing.
func (vc *Voice) Idle() bool { return vc.pending.Load() == 0 }

// Status is why a part of the path is missing ("" when none is).
func (vc *Voice) Status() string { return vc.cfg.status }

// onEvent runs on the capture loop (and the recogniser and speaker goroutines): it never blocks.
func (vc *Voice) onEvent(e audio.Event) {
	switch e.Kind {
	case audio.EventLevel:
		if vc.frames.Add(1)%uint64(vc.cfg.meterEach) == 0 { // 12.5 meter updates a second are plenty
			vc.meter(e.LevelDB)
		}
	case audio.EventState:
		vc.meter(math.NaN())
	case audio.EventSpeechStarted:
		vc.signalActivity(true)
	case audio.EventSpeechEnded:
		vc.signalActivity(false)
	case audio.EventBargeIn:
		vc.log.Info("voice: the candidate spoke over the examiner", "atMs", e.AtMs)
	case audio.EventError:
		vc.log.Warn("voice: a turn was lost", "err", e.Err)
	}
}

// meter sends the level (dBFS; NaN keeps the bar empty) and the current state to the console.
func (vc *Voice) meter(db float64) {
	st := vc.v.State()
	state := st.String()
	switch {
	case st == audio.StateExaminerSpeaking:
	case vc.cfg.status != "" && !vc.v.CanListen():
		state = vc.cfg.status
	case !vc.v.Listening():
		state = "mic off"
	}
	level := 0.0
	if !math.IsNaN(db) {
		level = audio.MeterLevel(db)
	}
	vc.levelMu.RLock()
	defer vc.levelMu.RUnlock()
	if vc.levelsOff {
		return
	}
	select {
	case vc.levels <- tui.AudioLevelMsg{Level: level, State: state}:
	default: // the console is behind: a later reading replaces this one
	}
}

func (vc *Voice) signalActivity(speaking bool) {
	select {
	case vc.activity <- speaking:
	default:
	}
}

// goReceive starts one of the voice path's goroutines: fn with each value from ch, in order,
// until the voice path closes (Close waits for it).
func goReceive[T any](vc *Voice, ch <-chan T, fn func(T)) {
	vc.wg.Add(1)
	go func() {
		defer vc.wg.Done()
		for {
			select {
			case <-vc.ctx.Done():
				return
			case v := <-ch:
				fn(v)
			}
		}
	}()
}

func (vc *Voice) onTranscript(ft audio.FinalTranscript) {
	select {
	case vc.turns <- ft:
	default:
		vc.log.Warn("voice: the controller is behind, a recognised turn was dropped", "text", ft.Text)
	}
}

// speculate starts the examiner on a pause's words, as the turn they will be if the candidate
// says nothing more.
func (vc *Voice) speculate(ft audio.FinalTranscript) {
	if !vc.v.Listening() {
		return
	}
	turn, ok := vc.turnFrom(ft)
	if !ok {
		return
	}
	if err := vc.x.Controller.Speculate(vc.ctx, turn); err != nil {
		vc.log.Debug("voice: speculation not started", "err", err)
	}
}

// submitTurn hands a recognised turn to the controller.
func (vc *Voice) submitTurn(ft audio.FinalTranscript) {
	if !vc.v.Listening() {
		return // switched to typing while it was being recognised
	}
	turn, ok := vc.turnFrom(ft)
	if !ok {
		vc.log.Info("voice: nothing recognised in a turn", "startMs", ft.StartMs, "ms", ft.DurationMs)
		return
	}
	err := vc.x.Controller.SubmitTurn(vc.ctx, turn)
	switch {
	case err == nil:
	case errors.Is(err, runtime.ErrExamOver), errors.Is(err, runtime.ErrClosed), errors.Is(err, context.Canceled):
		vc.log.Info("voice: turn after the exam", "text", turn.Text, "err", err)
	default:
		vc.log.Warn("voice: submitting a spoken turn", "text", turn.Text, "err", err)
	}
}

// turnFrom makes a controller turn of a final transcript: its text, STT confidence, when the
// speech started on the wall clock, and the endpointing, STT and TTS latencies measured here.
// TTS first audio is that of the examiner's latest line (the reply to this turn is yet to be
// synthesised when the controller records the turn's latency).
func (vc *Voice) turnFrom(ft audio.FinalTranscript) (runtime.Turn, bool) {
	text := strings.TrimSpace(ft.Text)
	if text == "" {
		return runtime.Turn{}, false
	}
	conf := 1.0
	if ft.HasConfidence {
		conf = min(max(ft.Confidence, 0), 1)
	}
	dur := time.Duration(ft.DurationMs) * time.Millisecond
	started := time.Time{}
	if u := ft.Utterance; !u.DecidedAt.IsZero() {
		started = u.DecidedAt.Add(-time.Duration(u.DecidedMs-u.StartMs) * time.Millisecond)
	}
	return runtime.Turn{Text: text, Confidence: conf, StartedAt: started, Duration: dur, Source: runtime.SourceMic,
		Latency: runtime.Latency{EndpointingMs: ft.EndpointingMs, STTMs: ft.STTMs,
			TTSFirstByteMs: math.Float64frombits(vc.ttsFirst.Load())}}, true
}

// deliver receives every stored event (it must not block): the examiner's spoken lines are
// queued for the speaker; a pause or an immediate instruction cuts the current line.
func (vc *Voice) deliver(ev runtime.Event) {
	p, err := ev.Decode()
	if err != nil {
		return
	}
	switch p := p.(type) {
	case *runtime.NodeEnteredPayload:
		vc.mu.Lock()
		vc.nodeID = p.NodeID
		vc.mu.Unlock()
	case *runtime.SpokenPayload:
		vc.enqueue(p)
	case *runtime.ExamStatePayload:
		if p.State == runtime.StatePaused {
			vc.interrupt("paused")
		}
	case *runtime.AdminInstructionPayload:
		if p.Mode.Interrupts() && p.Status == runtime.AdminReceived {
			vc.interrupt(p.Mode.String() + " instruction")
		}
	}
}

func (vc *Voice) enqueue(p *runtime.SpokenPayload) {
	vc.mu.Lock()
	opts := audio.SpeakOptions{Speed: p.TTSSpeed, Language: vc.x.Spec.Language, Voice: SpeechVoice(vc.cfg.voice, vc.x.Controller.Language())}
	if n := vc.x.Spec.Node(vc.nodeID); n != nil {
		if n.Controller.Voice != "" {
			opts.Voice = n.Controller.Voice
		}
		if opts.Speed == 0 {
			opts.Speed = n.Controller.TTSSpeed
		}
	}
	if opts.Speed == 0 {
		opts.Speed = 1
	}
	opts.Speed = min(max(opts.Speed*vc.cfg.speed, audio.MinSpeed), audio.MaxSpeed)
	vc.queue = append(vc.queue, spokenLine{text: p.Text, opts: opts})
	vc.pending.Add(1)
	vc.mu.Unlock()
	select {
	case vc.wake <- struct{}{}:
	default:
	}
}

// interrupt drops the queued lines and stops the one playing.
func (vc *Voice) interrupt(why string) {
	vc.mu.Lock()
	dropped := len(vc.queue)
	vc.queue = nil
	vc.pending.Add(-int64(dropped))
	vc.mu.Unlock()
	vc.v.StopSpeaking()
	vc.log.Info("voice: examiner speech stopped", "why", why, "droppedLines", dropped)
}

// next takes the queued lines that share the first one's voice and speed, joined, so the
// sentences of one reply (streamed as separate events) play back to back.
func (vc *Voice) next() (spokenLine, bool) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	if len(vc.queue) == 0 {
		return spokenLine{}, false
	}
	line := vc.queue[0]
	n := 1
	for n < len(vc.queue) && vc.queue[n].opts == line.opts {
		line.text += " " + vc.queue[n].text
		n++
	}
	line.lines = n
	vc.queue = vc.queue[n:]
	return line, true
}

// speakLines plays queued examiner lines, then tells the controller the speech is done.
func (vc *Voice) speakLines() {
	spoke := false
	for {
		line, ok := vc.next()
		if !ok {
			break
		}
		spoke = true
		res, err := vc.v.Speak(vc.ctx, line.text, line.opts)
		vc.pending.Add(-int64(line.lines))
		if res.FirstAudioMs > 0 {
			vc.ttsFirst.Store(math.Float64bits(res.FirstAudioMs))
		}
		if err != nil {
			if vc.ctx.Err() != nil {
				return
			}
			vc.log.Warn("voice: examiner speech failed", "err", err, "text", line.text)
			continue
		}
		if res.Interrupted {
			r := res
			vc.heard.Store(&r)
			vc.log.Info("voice: examiner interrupted", "heard", res.PlayedText, "said", res.Text,
				"played", res.Played, "of", res.Total)
			if err := vc.x.Controller.SpeechInterrupted(res.PlayedText); err != nil {
				vc.log.Warn("voice: report interruption", "err", err)
			}
		}
	}
	if spoke {
		vc.x.Controller.SpeechDone()
	}
}

// Close stops the voice path: workers, capture and playback, and finishes the recordings.
// It is safe to call twice.
func (vc *Voice) Close() error {
	vc.closeOnce.Do(func() {
		vc.cancel()
		vc.v.StopSpeaking()
		vc.wg.Wait()
		err := vc.v.Close()
		if vc.rec != nil {
			err = errors.Join(err, vc.rec.Close())
		}
		vc.x.voice.CompareAndSwap(vc, nil)
		vc.levelMu.Lock()
		vc.levelsOff = true
		close(vc.levels)
		vc.levelMu.Unlock()
		st := vc.v.Stats()
		vc.log.Info("voice closed", "frames", st.Frames, "ignored", st.Ignored,
			"captureToVADAvgMs", st.CaptureToVADAvgMs, "captureToVADMaxMs", st.CaptureToVADMaxMs)
		vc.closeErr = err
	})
	return vc.closeErr
}

// CanSwitchInput says whether a microphone path is attached (tui.InputSwitchChecker): without
// one the console hides its switch-input key.
func (x *Exam) CanSwitchInput() bool {
	vc := x.voice.Load()
	return vc != nil && vc.v.CanListen()
}

// SwitchInput toggles between typed and spoken answers (the console's switch-input key). The
// microphone stays open while typing; its frames are recorded but not recognised.
func (x *Exam) SwitchInput() (runtime.InputSource, error) {
	vc := x.voice.Load()
	if vc == nil {
		return runtime.SourceTyped, ErrNoVoice
	}
	if !vc.v.CanListen() {
		return runtime.SourceTyped, fmt.Errorf("%w: %s", ErrNoMicrophone, vc.cfg.status)
	}
	on := !vc.v.Listening()
	vc.v.SetListening(on)
	vc.meter(math.NaN())
	if on {
		return runtime.SourceMic, nil
	}
	return runtime.SourceTyped, nil
}

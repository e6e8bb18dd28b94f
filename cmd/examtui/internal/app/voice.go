package app

import (
	"filippo.io/age"

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

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/voicepath"
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
	encryptTo []age.Recipient
	status    string
	voice     string
	speed     float64
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

// WithVoiceEncryption encrypts the recordings to these age recipients when the voice path
// closes (internal/atrest): the plaintext WAV files are removed and the session lists the
// encrypted ones. None: the recordings stay as they are.
func WithVoiceEncryption(to []age.Recipient) VoiceOption {
	return func(v *voiceConfig) error { v.encryptTo = to; return nil }
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

// WithVoiceSpeed scales the examiner's speaking rate (1 normal; 0.5..2, voicepath.WithSpeed):
// a faster examiner for quick rehearsals, a slower one for beginners. slow_down applies on top
// of it.
func WithVoiceSpeed(f float64) VoiceOption {
	return func(v *voiceConfig) error { v.speed = f; return nil }
}

// WithVoiceAdaptiveEndOfTurn is the adaptive end of turn that rooms use too
// (voicepath.EndAdaptive): at each pause the words so far are recognised (and shown as the
// interim transcript); a complete answer ends the turn after the short delay, a trailing one
// waits up to MaxEndpointingDelay; and the examiner starts on a complete answer during the
// wait (Controller.Speculate), its reply kept only if the final turn is the same.
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

// Voice is the local voice path of one exam: the microphone and the speaker on the voice
// path every transport uses (transport/voicepath: turns, the speech queue, interruptions),
// the session's recordings, and the console's level meter. Close it before the exam.
type Voice struct {
	x    *Exam
	path *voicepath.Path
	v    *audio.Voice
	cfg  voiceConfig
	log  *slog.Logger
	rec  *audio.SessionRecorder

	levelMu   sync.RWMutex // Close holds it to close levels; senders hold it shared
	levelsOff bool
	levels    chan tui.AudioLevelMsg
	frames    atomic.Uint64 // level events seen, for the meter's rate

	closeOnce sync.Once
	closeErr  error
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
	vc := &Voice{x: x, cfg: cfg, log: cfg.log, levels: make(chan tui.AudioLevelMsg, 32)}
	popts := []voicepath.Option{voicepath.WithSource(runtime.SourceMic),
		voicepath.WithDefaultVoice(cfg.voice), voicepath.WithSpeed(cfg.speed), voicepath.WithBargeIn(cfg.bargeIn),
		voicepath.WithLogger(cfg.log), voicepath.WithEvents(vc.onEvent), voicepath.WithInterim(true)}
	if cfg.adaptive {
		popts = append(popts, voicepath.WithEndOfTurn(voicepath.EndAdaptive, cfg.endpoint))
	} else {
		popts = append(popts, voicepath.WithEndOfTurn(voicepath.EndFixed, cfg.endpoint))
	}
	if cfg.recordDir != "" {
		rec, err := audio.NewSessionRecorder(cfg.recordDir)
		if err != nil {
			closeParts(parts)
			return nil, err
		}
		vc.rec = rec
		popts = append(popts, voicepath.WithAudioOptions(audio.WithRecorder(rec)))
	}
	rec, synth := x.meterSpeech(parts.Recognizer, parts.Synthesizer)
	p, err := voicepath.New(x.Controller, voicepath.Parts{Source: parts.Source, Recognizer: rec, Synthesizer: synth, Sink: parts.Sink}, popts...)
	if err != nil {
		if vc.rec != nil {
			_ = vc.rec.Close()
		}
		return nil, err
	}
	vc.path, vc.v = p, p.Audio()
	if vc.rec != nil && x.Store != nil {
		paths := []string{vc.rec.Path(audio.TrackCandidate), vc.rec.Path(audio.TrackExaminer)}
		if err := x.Store.SetRecordings(ctx, x.SessionID, paths); err != nil {
			vc.log.Warn("voice: listing the recordings on the session", "err", err)
		}
	}
	x.voice.Store(vc)
	if vc.v.CanListen() {
		x.Input = runtime.SourceMic
	}
	if vc.v.CanSpeak() {
		x.Subscribe(p)
	}
	if err := p.Start(context.WithoutCancel(ctx)); err != nil {
		x.voice.Store(nil)
		_ = p.Close()
		if vc.rec != nil {
			_ = vc.rec.Close()
		}
		return nil, err
	}
	vc.meter(0)
	vc.log.Info("voice started", "listen", vc.v.CanListen(), "speak", vc.v.CanSpeak(), "bargeIn", cfg.bargeIn,
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
	if !hasRecording(dir) {
		return dir
	}
	for n := 2; ; n++ {
		d := filepath.Join(dir, fmt.Sprintf("take-%d", n))
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			return d
		}
	}
}

// hasRecording says whether dir holds a candidate track, plain or encrypted at rest.
func hasRecording(dir string) bool {
	p := filepath.Join(dir, audio.TrackCandidate.String()+".wav")
	for _, f := range []string{p, p + atrest.Suffix} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}

// encryptRecordings encrypts the finished recordings to the configured recipients and lists
// the encrypted files on the session. A recording that cannot be encrypted stays plain, and
// the error says so.
func (vc *Voice) encryptRecordings() error {
	if len(vc.cfg.encryptTo) == 0 {
		return nil
	}
	var paths []string
	var errs []error
	for _, t := range []audio.Track{audio.TrackCandidate, audio.TrackExaminer} {
		p := vc.rec.Path(t)
		enc, err := atrest.EncryptFile(p, vc.cfg.encryptTo)
		if err != nil {
			errs = append(errs, err)
			enc = p
		}
		paths = append(paths, enc)
	}
	if vc.x.Store != nil {
		if err := vc.x.Store.SetRecordings(context.Background(), vc.x.SessionID, paths); err != nil {
			errs = append(errs, fmt.Errorf("list the encrypted recordings: %w", err))
		}
	}
	vc.log.Info("recordings encrypted at rest", "files", len(paths)-len(errs))
	return errors.Join(errs...)
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

// Path is the voice path (the speech queue, turns, interruptions).
func (vc *Voice) Path() *voicepath.Path { return vc.path }

// LastHeard is what the candidate actually heard of the latest examiner line that was
// interrupted (barge-in, pause, immediate instruction); nil when none was.
func (vc *Voice) LastHeard() *audio.SpeakResult { return vc.path.LastHeard() }

// Idle reports that no examiner line is queued or playing.
func (vc *Voice) Idle() bool { return vc.path.Idle() }

// Status is why a part of the path is missing ("" when none is).
func (vc *Voice) Status() string { return vc.cfg.status }

// onEvent feeds the console's meter; it runs on the capture loop (and the recogniser and
// speaker goroutines) and never blocks.
func (vc *Voice) onEvent(e audio.Event) {
	switch e.Kind {
	case audio.EventLevel:
		if vc.frames.Add(1)%uint64(vc.cfg.meterEach) == 0 { // 12.5 meter updates a second are plenty
			vc.meter(e.LevelDB)
		}
	case audio.EventState:
		vc.meter(math.NaN())
	}
}

// meter sends the level (dBFS; NaN keeps the bar empty) and the current state to the console.
func (vc *Voice) meter(db float64) {
	if vc.v == nil { // an event while the path is being built
		return
	}
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

// Close stops the voice path: workers, capture and playback, and finishes the recordings.
// It is safe to call twice.
func (vc *Voice) Close() error {
	vc.closeOnce.Do(func() {
		err := vc.path.Close()
		if vc.rec != nil {
			err = errors.Join(err, vc.rec.Close(), vc.encryptRecordings())
		}
		vc.x.voice.CompareAndSwap(vc, nil)
		vc.levelMu.Lock()
		vc.levelsOff = true
		close(vc.levels)
		vc.levelMu.Unlock()
		st := vc.v.Stats()
		vc.log.Info("voice closed", "frames", st.Frames, "ignored", st.Ignored,
			"captureToVADAvgMs", st.CaptureToVADAvgMs, "captureToVADMaxMs", st.CaptureToVADMaxMs,
			"earlyReads", st.EarlyReads, "earlyDropped", st.EarlyDropped,
			"pausesLearned", st.PausesLearned, "learnedWaitMs", st.LearnedWait.Milliseconds())
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

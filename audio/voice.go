package audio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Event is one thing the voice loop reports to the console.
type Event struct {
	Kind      EventKind
	State     State   // EventState
	LevelDB   float64 // EventLevel
	AtMs      int64   // source timeline position, where it applies
	Partial   *Transcript
	Final     *FinalTranscript
	Utterance *Utterance // EventSpeechEnded: the turn's audio and boundaries
	Err       error
}

// FinalTranscript is one recognised candidate turn with its timing: what the controller turns
// into a transcript_segment and a latency record.
type FinalTranscript struct {
	Transcript
	// StartMs is where the speech began on the source timeline, DurationMs its length.
	StartMs, DurationMs int64
	// EndpointingMs is the audio time from the end of speech to the endpoint decision.
	EndpointingMs float64
	// STTMs is the wall time the recogniser took.
	STTMs float64
	// Utterance is the audio that was recognised.
	Utterance Utterance
}

// SpeakResult says what the candidate actually heard of an examiner line.
type SpeakResult struct {
	Text string
	// PlayedText is the part that was played: every finished sentence, and the words of the
	// interrupted one in proportion to the audio played, cut at a word boundary.
	PlayedText  string
	Played      time.Duration
	Total       time.Duration
	Interrupted bool
	// FirstAudioMs is the wall time from Speak to the first sentence's audio being ready
	// (the TTS first-byte latency the controller records).
	FirstAudioMs float64
}

// VoiceStats are running figures of the capture loop.
type VoiceStats struct {
	Frames uint64
	// CaptureToVADMaxMs / AvgMs: from a frame being complete at the source to the VAD and
	// endpointer having processed it.
	CaptureToVADMaxMs float64
	CaptureToVADAvgMs float64
	// Ignored counts frames dropped while the examiner spoke (half duplex).
	Ignored uint64
	// VADBusy is the time spent in VAD and endpointing over Frames frames: divided by the
	// audio time (Frames × 20 ms) it is the share of a core the detector takes live.
	VADBusy time.Duration
	// EarlyReads counts pauses read from their first quiet frames (the adaptive end of turn),
	// EarlyDropped those the candidate went on from before the VAD's hangover ran out: each
	// cost a transcription (and, when its words read as an answer, a speculative examiner
	// call) that no pause used.
	EarlyReads, EarlyDropped uint64
	// LearnedWait is the least wait a complete answer gets, learnt from the candidate's own
	// pauses (Endpointer.LearnedWait; zero: none learnt), and PausesLearned how many pauses
	// raised it.
	LearnedWait   time.Duration
	PausesLearned uint64
}

// Voice ties the pieces together: source frames → VAD/endpointing → recogniser → a final
// transcript callback, and text → synthesizer (sentence by sentence) → sink. It is half duplex
// by default: while the examiner speaks, and for a short tail after, microphone frames are
// ignored. With barge-in, candidate speech during playback stops it within a frame or two.
type Voice struct {
	src   Source
	rec   Recognizer
	synth Synthesizer
	sink  Sink
	cfg   voiceConfig
	ep    *Endpointer

	state    atomic.Int32
	playing  atomic.Bool
	bargedIn atomic.Bool
	// pauseMu orders PauseSpeaking and ResumeSpeaking with the end of a line; held says the
	// sink (a Pauser) is holding the line being said.
	pauseMu sync.Mutex
	held    bool
	// holds are the holds of the line being said, on the recorder's timeline (with a
	// recorder): its audio is recorded around them, where it was heard (recordExaminer).
	holds []hold
	// bargeVoiced is the voiced audio of the current turn heard over the examiner's line, while
	// it is not yet enough for a barge-in (-1: no such turn). Capture loop only.
	bargeVoiced time.Duration
	bargeAtMs   int64
	ignoreUntil atomic.Int64 // unix nanos: mic frames before this are ignored (half duplex tail)
	muted       atomic.Bool  // SetListening(false): the candidate answers by typing
	turn        atomic.Uint64
	pauseGen    atomic.Uint64 // counts pauses and resumptions, to drop stale releases
	holdCh      chan holdReq
	sttCh       chan sttJob
	speakMu     sync.Mutex
	started     atomic.Bool
	cancel      context.CancelFunc
	wg          sync.WaitGroup
	closeOnce   sync.Once

	specMu sync.Mutex
	spec   *speculation

	// early is the pause being read before the VAD's hangover ran out (adaptive end of turn;
	// earlyPauseRead): it belongs to the capture loop. earlyGen numbers such readings.
	early     *earlyRead
	earlyGen  uint64
	earlyLive atomic.Uint64 // the early reading still current (its gen), 0: none

	// stream is the streaming recogniser (nil: one-shot recognition at the endpoint). The
	// capture loop feeds it the turn as it is spoken; streamFed counts the turn's samples fed,
	// and streamHeld is set while a pause is being read, when feeding waits for speech to
	// resume so the endpoint finds the pause's transcript still current. Both belong to the
	// capture loop.
	stream     RecognitionStream
	streamFed  int
	streamHeld bool

	statMu  sync.Mutex
	stats   VoiceStats
	latSum  time.Duration
	latN    uint64
	ignored bool
}

// sttJob is one endpoint for the recognition worker: the utterance and, with a streaming
// recogniser, its transcript on its way.
type sttJob struct {
	u       Utterance
	pending *PendingTranscript
}

// streamWait bounds the wait for a streaming transcript before the one-shot path takes over:
// a stream answers within milliseconds of the cut, so this is only reached when it is stuck.
const streamWait = time.Second

// hold is one pause of the examiner's line on the recorder's timeline, in samples: from the
// pause to the resumption (to < 0: still held).
type hold struct{ from, to int64 }

type holdReq struct {
	turn    uint64
	early   uint64 // the early reading it came from (earlyRead.gen), 0: none
	pause   uint64 // the pause it was made in: a release is stale once speech resumed
	on      bool
	release bool // the words read as complete: the short delay (Endpointer.Release)
	sure    bool // and as sure: the shortest (Endpointer.ReleaseSure)
}

// earlyPauseRead is how much quiet inside speech starts the reading of a pause, ahead of the
// VAD's hangover (100 ms with the adaptive end of turn): the pause's transcript, the examiner's
// speculative reply and its first sentence are then on their way that much sooner. A reading
// begun this early holds nothing and releases nothing until the hangover has run out with no
// sound since (the same pause); if the candidate goes on first, it is dropped, and its
// speculation is replaced or left unused (the controller reuses one only for the very turn it
// was made for). Two frames, not one: the gap inside a word (a stop consonant) is often one.
const earlyPauseRead = 2 * FrameDuration

// earlyRead is a pause reading begun before the VAD's hangover ran out (earlyPauseRead).
type earlyRead struct {
	gen     uint64
	cancel  context.CancelFunc // ends its transcription's wait (dropEarly)
	pause   uint64             // the pause it turned out to be (pauseGen), 0 while the hangover runs
	pending *holdReq           // its reading, when it came before the pause was confirmed
}

// speculation is a transcript of a turn made during its pause; when the turn ends with no
// more speech (the same audio boundaries) it is the final transcript, and recognition is
// already done at the endpoint.
type speculation struct {
	startMs, endMs int64
	t              Transcript
	took           time.Duration
}

type voiceConfig struct {
	endpoint     EndpointConfig
	bargeIn      bool
	bargeInMin   time.Duration
	bargeDecide  func(BargeInEvidence) bool
	tail         time.Duration
	onEvent      func(Event)
	onTranscript func(FinalTranscript)
	recorder     *SessionRecorder
	log          *slog.Logger
	turnDetector func(partial string) bool
	classify     func(partial Transcript) TurnEnd
	speculate    func(FinalTranscript)
}

// VoiceOption configures NewVoice.
type VoiceOption func(*voiceConfig) error

// WithVoiceEndpointing sets the endpointing (zero: LiveKit's 0.5 s / 3 s defaults).
func WithVoiceEndpointing(c EndpointConfig) VoiceOption {
	return func(v *voiceConfig) error {
		if c == (EndpointConfig{}) {
			c = DefaultEndpointConfig()
		}
		if c.VAD == (VADConfig{}) {
			c.VAD = DefaultVADConfig()
		}
		if err := c.validate(); err != nil {
			return err
		}
		v.endpoint = c
		return nil
	}
}

// WithBargeIn lets candidate speech interrupt examiner playback (default off: half duplex).
func WithBargeIn(on bool) VoiceOption {
	return func(v *voiceConfig) error { v.bargeIn = on; return nil }
}

// DefaultBargeInSpeech is how much voiced audio a candidate's turn needs before it cuts the
// examiner short. The VAD starts a turn after 60 ms above the noise floor, which a burst also
// passes: when a browser's capture starts during the examiner's line (a rejoin, a microphone
// restart), Chromium's echo canceller emits a burst of up to about -46 dBFS out of digital
// silence, for a moment. Speech keeps going; a burst does not.
const DefaultBargeInSpeech = 200 * time.Millisecond

// WithBargeInSpeech sets how much voiced audio (frames the VAD counts as speech, in the turn)
// a candidate must produce over the examiner's line before it is cut (default
// DefaultBargeInSpeech).
func WithBargeInSpeech(d time.Duration) VoiceOption {
	return func(v *voiceConfig) error {
		if d < FrameDuration || d > 5*time.Second {
			return fmt.Errorf("%w: barge-in speech %v", ErrInvalidConfig, d)
		}
		v.bargeInMin = d
		return nil
	}
}

// BargeInEvidence is what the candidate has done over the examiner's line so far, on which
// the barge-in decision is taken at every frame of their turn.
type BargeInEvidence struct {
	Voiced      time.Duration // voiced audio (frames the VAD counts as speech) in the turn
	Min         time.Duration // the configured minimum (WithBargeInSpeech)
	TurnStartMs int64         // where the candidate's turn began on the source timeline
}

// EnoughSpeech is the default barge-in decision: Min of voiced audio.
func EnoughSpeech(e BargeInEvidence) bool { return e.Voiced >= e.Min }

// WithBargeInDecision replaces the barge-in decision (default EnoughSpeech). decide runs on
// the capture loop at every frame of a candidate's turn over the examiner's line, until it
// says yes or the line ends; it must not block.
func WithBargeInDecision(decide func(BargeInEvidence) bool) VoiceOption {
	return func(v *voiceConfig) error {
		if decide == nil {
			return fmt.Errorf("%w: nil barge-in decision", ErrInvalidConfig)
		}
		v.bargeDecide = decide
		return nil
	}
}

// WithHalfDuplexTail sets how long after playback mic frames are still ignored (default
// 300 ms: room echo and the device's output latency).
func WithHalfDuplexTail(d time.Duration) VoiceOption {
	return func(v *voiceConfig) error {
		if d < 0 || d > 5*time.Second {
			return fmt.Errorf("%w: half-duplex tail %v", ErrInvalidConfig, d)
		}
		v.tail = d
		return nil
	}
}

// WithOnEvent receives every event. It runs on the capture loop: it must not block.
func WithOnEvent(f func(Event)) VoiceOption {
	return func(v *voiceConfig) error { v.onEvent = f; return nil }
}

// WithOnTranscript receives each final transcript (also sent as EventFinal).
func WithOnTranscript(f func(FinalTranscript)) VoiceOption {
	return func(v *voiceConfig) error { v.onTranscript = f; return nil }
}

// WithRecorder records both sides of the session (the caller closes the recorder).
func WithRecorder(r *SessionRecorder) VoiceOption {
	return func(v *voiceConfig) error { v.recorder = r; return nil }
}

// WithVoiceLogger sets the logger.
func WithVoiceLogger(l *slog.Logger) VoiceOption {
	return func(v *voiceConfig) error { return setLogger(&v.log, l) }
}

// WithTurnDetector enables the text turn detector: when the candidate pauses, the turn so far
// is transcribed (sent as a partial), and if unfinished(text) says the words stop mid-thought
// the wait is extended to MaxEndpointingDelay. LooksUnfinished is a ready heuristic.
func WithTurnDetector(unfinished func(partial string) bool) VoiceOption {
	return func(v *voiceConfig) error { v.turnDetector = unfinished; return nil }
}

// WithTurnClassifier enables the adaptive end of turn: when the candidate pauses, the turn so
// far is transcribed, and classify decides the wait: TurnComplete ends the turn after the
// endpointer's CompleteEndpointingDelay (TurnSure after its SureEndpointingDelay),
// TurnTrailing holds it to MaxEndpointingDelay, and TurnUnsure keeps MinEndpointingDelay. When
// the turn then ends with no more speech, that transcript is the final one, so recognition is
// already done at the endpoint. ClassifyTranscript is a ready classifier.
func WithTurnClassifier(classify func(partial Transcript) TurnEnd) VoiceOption {
	return func(v *voiceConfig) error { v.classify = classify; return nil }
}

// WithSpeculation receives the pause's transcript when, with the adaptive end of turn, the
// words read as an answer (complete, or too short to tell) rather than trailing: it is the
// final transcript unless the candidate goes on, so work on it may start during the wait (the
// controller's Speculate). It runs on the pause-reading goroutine and must not block. The
// FinalTranscript has the text, confidence and speech bounds the final one will have.
func WithSpeculation(f func(FinalTranscript)) VoiceOption {
	return func(v *voiceConfig) error { v.speculate = f; return nil }
}

// NewVoice builds the pipeline. It takes ownership of src and sink (Close closes them). synth
// and sink may be nil for a listen-only voice, src and rec for a speak-only one (no microphone,
// or no recogniser: the candidate types while the examiner still speaks).
func NewVoice(src Source, rec Recognizer, synth Synthesizer, sink Sink, opts ...VoiceOption) (*Voice, error) {
	if (src == nil) != (rec == nil) {
		return nil, fmt.Errorf("%w: a source needs a recognizer and a recognizer a source", ErrInvalidConfig)
	}
	if (synth == nil) != (sink == nil) {
		return nil, fmt.Errorf("%w: a synthesizer needs a sink and a sink a synthesizer", ErrInvalidConfig)
	}
	if src == nil && synth == nil {
		return nil, fmt.Errorf("%w: a voice needs a source and a recognizer, a synthesizer and a sink, or both", ErrInvalidConfig)
	}
	cfg := voiceConfig{endpoint: DefaultEndpointConfig(), bargeInMin: DefaultBargeInSpeech, bargeDecide: EnoughSpeech, tail: 300 * time.Millisecond, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	ep, err := NewEndpointer(cfg.endpoint)
	if err != nil {
		return nil, err
	}
	return &Voice{bargeVoiced: -1, src: src, rec: rec, synth: synth, sink: sink, cfg: cfg, ep: ep,
		holdCh: make(chan holdReq, 4), sttCh: make(chan sttJob, 8)}, nil
}

// State is the current state.
func (v *Voice) State() State { return State(v.state.Load()) }

// CanListen reports whether the voice has a source and a recognizer.
func (v *Voice) CanListen() bool { return v.src != nil }

// CanSpeak reports whether the voice has a synthesizer and a sink.
func (v *Voice) CanSpeak() bool { return v.synth != nil }

// SetListening turns the microphone path on or off (answers typed instead). Off, frames are
// still recorded but never reach the VAD, and a turn in progress is dropped.
func (v *Voice) SetListening(on bool) { v.muted.Store(!on) }

// Listening reports whether microphone turns are being taken.
func (v *Voice) Listening() bool { return v.src != nil && !v.muted.Load() }

// Stats returns the capture loop's figures so far.
func (v *Voice) Stats() VoiceStats {
	v.statMu.Lock()
	defer v.statMu.Unlock()
	s := v.stats
	if v.latN > 0 {
		s.CaptureToVADAvgMs = float64(v.latSum.Microseconds()) / 1000 / float64(v.latN)
	}
	return s
}

func (v *Voice) emit(e Event) {
	if v.cfg.onEvent != nil {
		v.cfg.onEvent(e)
	}
}

func (v *Voice) setState(s State) {
	if State(v.state.Swap(int32(s))) != s {
		v.emit(Event{Kind: EventState, State: s})
	}
}

// Start starts the source, the capture loop and the recognition worker; ctx or Close stops them.
func (v *Voice) Start(ctx context.Context) error {
	if !v.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	ctx, v.cancel = context.WithCancel(ctx)
	if v.src == nil { // speak only
		v.emit(Event{Kind: EventState, State: StateListening})
		return nil
	}
	if err := v.src.Start(ctx); err != nil {
		v.cancel()
		return err
	}
	if sr, ok := v.rec.(StreamingRecognizer); ok {
		st, err := sr.NewStream(ctx)
		if err != nil {
			v.cfg.log.Warn("streaming recognition unavailable; recognising each turn at its end", "err", err)
		} else {
			v.stream = st
		}
	}
	v.wg.Add(2)
	go v.loop(ctx)
	go v.recognize(ctx)
	v.emit(Event{Kind: EventState, State: StateListening})
	return nil
}

func (v *Voice) loop(ctx context.Context) {
	defer v.wg.Done()
	defer close(v.sttCh)
	frames := v.src.Frames()
	for {
		select {
		case <-ctx.Done():
			return
		case h := <-v.holdCh:
			if h.early != 0 {
				var ok bool
				if h, ok = v.earlyReading(h); !ok {
					continue
				}
			}
			v.applyHold(h)
		case f, ok := <-frames:
			if !ok {
				return
			}
			v.frame(ctx, f)
		}
	}
}

// earlyReading takes a reading begun before the hangover ran out: stale (the candidate went on)
// it is dropped, before the pause is confirmed it waits for it, and after, it is the pause's.
func (v *Voice) earlyReading(h holdReq) (holdReq, bool) {
	e := v.early
	switch {
	case e == nil || e.gen != h.early:
		return h, false
	case e.pause == 0:
		e.pending = &h
		return h, false
	}
	h.pause = e.pause
	return h, true
}

// applyHold applies a pause's reading to the endpointer.
func (v *Voice) applyHold(h holdReq) {
	if h.turn != v.turn.Load() || !v.ep.InTurn() {
		return
	}
	switch {
	case h.pause != 0 && h.pause != v.pauseGen.Load():
		// Made in an earlier silence: speech resumed since, and the endpointer already
		// dropped that wait.
	case h.release && h.sure:
		v.ep.Hold(false)
		v.ep.ReleaseSure()
	case h.release:
		v.ep.Hold(false)
		v.ep.Release()
	default:
		v.ep.Hold(h.on)
	}
}

func (v *Voice) frame(ctx context.Context, f Frame) {
	if v.cfg.recorder != nil {
		if err := v.cfg.recorder.WriteAt(TrackCandidate, f.Offset, f.Samples); err != nil && !errors.Is(err, ErrClosed) {
			v.cfg.log.Warn("recording candidate audio", "err", err)
		}
	}
	playing := v.playing.Load()
	if v.muted.Load() || (!v.cfg.bargeIn && (playing || time.Now().UnixNano() < v.ignoreUntil.Load())) {
		if !v.ignored {
			v.ep.ResetSpeech() // a turn cannot straddle the examiner's speech
			v.ignored = true
		}
		v.statMu.Lock()
		v.stats.Ignored++
		v.statMu.Unlock()
		return
	}
	v.ignored = false
	pushStart := time.Now()
	r := v.ep.Push(f)
	done := time.Now()
	v.statMu.Lock()
	v.stats.Frames++
	v.stats.VADBusy += done.Sub(pushStart)
	if l := r.Learned; l != nil {
		v.stats.LearnedWait = l.Wait
		v.stats.PausesLearned++
		v.cfg.log.Info("voice: the candidate went on after a short pause; complete answers now wait at least as long",
			"pause_ms", l.Pause.Milliseconds(), "wait_ms", l.Wait.Milliseconds(), "where", l.Where.String())
	}
	if !f.Captured.IsZero() {
		lat := done.Sub(f.Captured)
		v.latSum += lat
		v.latN++
		v.stats.CaptureToVADMaxMs = max(v.stats.CaptureToVADMaxMs, float64(lat.Microseconds())/1000)
	}
	v.statMu.Unlock()
	at := f.StartMs()
	v.emit(Event{Kind: EventLevel, LevelDB: r.VAD.LevelDB, AtMs: at})
	if r.TurnStarted || r.Resumed || r.Paused {
		v.pauseGen.Add(1)
	}
	v.readEarly(ctx, f, r)
	pending := v.feedStream(r)
	if r.TurnStarted {
		v.turn.Add(1)
		v.emit(Event{Kind: EventSpeechStarted, AtMs: r.TurnStartMs})
		v.bargeVoiced, v.bargeAtMs = -1, r.TurnStartMs
		if playing && v.cfg.bargeIn {
			// The VAD's onset run counts already; the rest must follow (bargeInCheck).
			v.bargeVoiced = v.cfg.endpoint.VAD.MinSpeech
		}
		v.setState(StateSpeaking)
	}
	v.bargeInCheck(r, playing)
	if r.Resumed {
		v.setState(StateSpeaking)
	}
	if r.Paused {
		v.emit(Event{Kind: EventSpeechPaused, AtMs: at})
		if v.cfg.classify != nil {
			// Until the words are read, wait as if they trail: a slow recogniser must not let
			// the min delay end a turn that stops on "because".
			v.ep.HoldUnread()
		}
		if e := v.early; e != nil {
			// Read since its first quiet frames, and nothing was said since: the same pause.
			e.pause = v.pauseGen.Load()
			if h := e.pending; h != nil {
				h.pause = e.pause
				v.applyHold(*h)
			}
		} else if v.cfg.turnDetector != nil || v.cfg.classify != nil {
			if snap, ok := v.ep.Snapshot(); ok {
				v.streamHeld = v.stream != nil
				v.wg.Add(1)
				go v.detectTurn(ctx, v.turn.Load(), v.pauseGen.Load(), 0, snap)
			}
		}
	}
	if r.Utterance != nil {
		v.dropEarly()
		v.bargeVoiced = -1
		v.emit(Event{Kind: EventSpeechEnded, Utterance: r.Utterance, AtMs: r.Utterance.EndMs})
		v.setState(StateThinking)
		select {
		case v.sttCh <- sttJob{u: *r.Utterance, pending: pending}:
		default:
			v.emit(Event{Kind: EventError, Err: fmt.Errorf("%w: recogniser busy, utterance at %d ms dropped", ErrSTT, r.Utterance.StartMs)})
		}
	}
}

// readEarly starts reading a pause at its first quiet frames (earlyPauseRead), with the adaptive
// end of turn, and drops that reading when the candidate goes on before the VAD's hangover ran
// out. It runs before the stream is fed, so a dropped reading's held audio is fed at once.
func (v *Voice) readEarly(ctx context.Context, f Frame, r EndpointResult) {
	if e := v.early; e != nil && e.pause == 0 && (r.VAD.Voiced || !v.ep.InTurn() || r.TurnStarted) {
		v.dropEarly() // the candidate went on: not a pause (yet)
		v.streamHeld = false
	}
	if r.Resumed || r.TurnStarted {
		v.dropEarly() // a confirmed pause is over too; the stream is unheld by feedStream
	}
	if v.cfg.classify == nil || v.early != nil || !v.ep.InTurn() || !r.VAD.Speaking || r.VAD.Voiced ||
		v.cfg.endpoint.VAD.Hangover <= earlyPauseRead {
		return
	}
	quiet := f.Offset + int64(len(f.Samples)) - r.VAD.LastVoicedEnd
	if quiet < durationSamples(earlyPauseRead) || quiet-int64(len(f.Samples)) >= durationSamples(earlyPauseRead) {
		return // not the frame on which the quiet reached it
	}
	snap, ok := v.ep.Snapshot()
	if !ok {
		return
	}
	v.earlyGen++
	rctx, cancel := context.WithCancel(ctx)
	v.early = &earlyRead{gen: v.earlyGen, cancel: cancel}
	v.statMu.Lock()
	v.stats.EarlyReads++
	v.statMu.Unlock()
	v.earlyLive.Store(v.earlyGen)
	v.streamHeld = v.stream != nil
	v.wg.Add(1)
	go v.detectTurn(rctx, v.turn.Load(), 0, v.earlyGen, snap)
}

// dropEarly forgets the early reading: its result, if it comes, is stale.
// Its transcription, if still on its way, is no longer waited for.
func (v *Voice) dropEarly() {
	e := v.early
	if e == nil {
		return
	}
	e.cancel()
	if e.pause == 0 { // the candidate went on before the hangover ran out
		v.statMu.Lock()
		v.stats.EarlyDropped++
		v.statMu.Unlock()
	}
	v.early = nil
	v.earlyLive.Store(0)
}

// detectTurn transcribes the turn so far during a pause and holds the endpoint when the words
// stop mid-thought. early numbers a reading begun before the hangover ran out (readEarly);
// its pause is then filled in by the capture loop.
func (v *Voice) detectTurn(ctx context.Context, turn, pause, early uint64, u Utterance) {
	defer v.wg.Done()
	wait := v.cfg.endpoint.MinEndpointingDelay
	if v.cfg.classify != nil {
		wait = v.cfg.endpoint.MaxEndpointingDelay // the turn is held until the words are read
	}
	tctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	start := time.Now()
	t, err := v.transcribePause(tctx, u)
	if turn != v.turn.Load() || (early != 0 && v.earlyLive.Load() != early) {
		return // the turn ended, or the candidate went on before this early reading's pause
	}
	end := TurnUnsure
	if err == nil {
		if v.cfg.classify != nil && plausibleWords(t.Text, u.Duration()) {
			v.specMu.Lock()
			v.spec = &speculation{startMs: u.StartMs, endMs: u.EndMs, t: t, took: time.Since(start)}
			v.specMu.Unlock()
			end = v.cfg.classify(t)
			if end != TurnTrailing && v.cfg.speculate != nil {
				ft := t
				ft.IsFinal = true
				v.cfg.speculate(FinalTranscript{Transcript: ft, StartMs: u.StartMs, DurationMs: u.EndMs - u.StartMs, Utterance: u})
			}
		}
		t.IsFinal = false
		v.emit(Event{Kind: EventPartial, Partial: &t})
	}
	req := holdReq{turn: turn, early: early}
	switch {
	case v.cfg.classify != nil:
		// Every reading is sent, unsure and failed ones too: they lift the pending hold.
		req.pause = pause
		req.release = end == TurnComplete || end == TurnSure
		req.sure = end == TurnSure
		req.on = end == TurnTrailing
	case err == nil && v.cfg.turnDetector(t.Text):
		req.on = true
	default:
		return
	}
	select {
	case v.holdCh <- req:
	case <-ctx.Done():
	}
}

// maxWordsPerSecond bounds plausible speech: fast speakers reach about four words a second.
const maxWordsPerSecond = 5

// plausibleWords reports whether text could have been said in d. A grammar recogniser forces a
// fragment ("Sorry,") onto a whole phrase of its grammar; such a transcript must neither end a
// turn early nor become its final text.
func plausibleWords(text string, d time.Duration) bool {
	return float64(len(strings.Fields(text))) <= maxWordsPerSecond*d.Seconds()+1
}

// speculated returns the pause's transcript when u is the same speech (nothing was said after
// the pause), and forgets it either way.
func (v *Voice) speculated(u Utterance) (Transcript, bool) {
	v.specMu.Lock()
	defer v.specMu.Unlock()
	s := v.spec
	v.spec = nil
	if s == nil || s.startMs != u.StartMs || s.endMs != u.EndMs || u.Forced {
		return Transcript{}, false
	}
	return s.t, true
}

func (v *Voice) recognize(ctx context.Context) {
	defer v.wg.Done()
	for job := range v.sttCh {
		u := job.u
		start := time.Now()
		t, err := v.transcribeTurn(ctx, job)
		sttMs := float64(time.Since(start).Microseconds()) / 1000
		if err != nil {
			v.emit(Event{Kind: EventError, Err: err, AtMs: u.StartMs})
			v.cfg.log.Warn("recognition failed", "err", err, "startMs", u.StartMs)
		} else {
			ft := FinalTranscript{Transcript: t, StartMs: u.StartMs, DurationMs: u.EndMs - u.StartMs,
				EndpointingMs: float64(u.DecidedMs - u.EndMs), STTMs: sttMs, Utterance: u}
			if v.cfg.onTranscript != nil {
				v.cfg.onTranscript(ft)
			}
			v.emit(Event{Kind: EventFinal, Final: &ft, AtMs: u.StartMs})
		}
		if v.State() == StateThinking {
			v.setState(StateListening)
		}
	}
}

// transcribeTurn is the endpoint's transcript: the pause's when nothing was said after it, else
// the stream's, else (no stream, or it failed) a one-shot recognition of the utterance.
func (v *Voice) transcribeTurn(ctx context.Context, job sttJob) (Transcript, error) {
	u := job.u
	if t, ok := v.speculated(u); ok {
		t.IsFinal = true // recognised during the pause: the endpoint finds it ready
		return t, nil
	}
	if job.pending != nil {
		wctx, cancel := context.WithTimeout(ctx, streamWait)
		t, err := job.pending.Wait(wctx)
		cancel()
		if err == nil {
			t.IsFinal = true
			return t, nil
		}
		v.cfg.log.Warn("streaming recognition failed; recognising the turn again in one shot", "err", err, "startMs", u.StartMs)
	}
	if pr, ok := v.rec.(PartialRecognizer); ok {
		return pr.TranscribeWithPartials(ctx, u, func(p Transcript) {
			p.IsFinal = false
			v.emit(Event{Kind: EventPartial, Partial: &p, AtMs: u.DecidedMs})
		})
	}
	v.emit(Event{Kind: EventPartial, Partial: &Transcript{Text: InterimText}, AtMs: u.DecidedMs})
	return v.rec.Transcribe(ctx, u)
}

// transcribePause reads the turn so far during a pause: from the stream when there is one
// (it has heard the turn already), else, or when it fails, in one shot.
func (v *Voice) transcribePause(ctx context.Context, u Utterance) (Transcript, error) {
	if v.stream != nil {
		wctx, cancel := context.WithTimeout(ctx, streamWait)
		t, err := v.stream.Final(wctx)
		cancel()
		if err == nil {
			return t, nil
		}
		v.cfg.log.Debug("streaming recognition of a pause failed; one shot", "err", err)
	}
	return v.rec.Transcribe(ctx, u)
}

// feedStream gives the streaming recogniser the open turn's new audio and, at the endpoint,
// cuts it: the returned transcript is on its way while the utterance goes to the worker. It
// runs on the capture loop and never waits for the recogniser.
func (v *Voice) feedStream(r EndpointResult) *PendingTranscript {
	if v.stream == nil {
		return nil
	}
	if r.TurnStarted {
		v.stream.Reset()
		v.streamFed, v.streamHeld = 0, false
	}
	if r.Resumed {
		v.streamHeld = false // the pause was not the end: the stream hears the rest
	}
	samples := v.ep.TurnSamples()
	if r.Utterance != nil {
		samples = r.Utterance.Samples
	}
	if !v.streamHeld && len(samples) > v.streamFed {
		if err := v.stream.Feed(samples[v.streamFed:]); err != nil {
			v.cfg.log.Debug("streaming recogniser not fed", "err", err)
		}
		v.streamFed = len(samples)
	}
	if r.Utterance == nil {
		return nil
	}
	v.streamFed, v.streamHeld = 0, false
	return v.stream.Cut()
}

// Speak synthesises text sentence by sentence and plays it, starting as soon as the first
// sentence is ready. With barge-in, candidate speech stops it; the result says what was heard.
func (v *Voice) Speak(ctx context.Context, text string, opts SpeakOptions) (res SpeakResult, err error) {
	if v.synth == nil {
		return SpeakResult{}, fmt.Errorf("%w: this voice has no synthesizer", ErrInvalidConfig)
	}
	v.speakMu.Lock()
	defer v.speakMu.Unlock()
	res = SpeakResult{Text: text}
	sentences := SplitSentences(text)
	if len(sentences) == 0 {
		return res, nil
	}
	// A piece is one sentence. With a sink that plays a clip as it arrives (StreamSink), it
	// is handed over before it is synthesised and its audio follows on parts, so the line
	// plays from the voice's first frame; err is set before parts is closed, clip unused.
	type piece struct {
		clip  Clip
		err   error
		idx   int
		parts chan Clip
	}
	_, streaming := v.sink.(StreamSink)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var firstAt atomic.Int64       // streaming: when the first run of audio came (unix ns)
	pieces := make(chan *piece, 1) // one sentence synthesised ahead of the one playing
	go func() {
		defer close(pieces)
		for i, s := range sentences {
			if streaming {
				p := &piece{idx: i, parts: make(chan Clip, 64)}
				select {
				case pieces <- p:
				case <-sctx.Done():
					return
				}
				var lead leadTrimmer
				_, p.err = SynthesizeStream(sctx, v.synth, s, opts, func(c Clip) {
					if i == 0 {
						c = lead.add(c) // the line's opening quiet is only a wait
					}
					if len(c.Samples) == 0 {
						return
					}
					firstAt.CompareAndSwap(0, time.Now().UnixNano())
					select {
					case p.parts <- c:
					case <-sctx.Done():
					}
				})
				close(p.parts)
				if p.err != nil {
					return
				}
				continue
			}
			c, err := v.synth.Synthesize(sctx, s, opts)
			if err == nil {
				// Resample here, ahead of playback, while the previous sentence plays.
				c, err = c.To16k()
			}
			if i == 0 {
				// The line's opening quiet is only a wait; between sentences it is a pause.
				c = c.TrimLeadingQuiet()
			}
			select {
			case pieces <- &piece{clip: c, err: err, idx: i}:
			case <-sctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	v.bargedIn.Store(false)
	v.pauseMu.Lock()
	v.holds = v.holds[:0]
	v.playing.Store(true)
	v.pauseMu.Unlock()
	v.setState(StateExaminerSpeaking)
	defer func() {
		v.endHold()
		v.ignoreUntil.Store(time.Now().Add(v.cfg.tail).UnixNano())
		if v.State() == StateExaminerSpeaking {
			v.setState(StateListening)
		}
	}()
	start := time.Now()
	var heard []string
	defer func() {
		res.PlayedText = strings.Join(heard, " ")
		if t := firstAt.Load(); res.FirstAudioMs == 0 && t != 0 {
			res.FirstAudioMs = float64(time.Unix(0, t).Sub(start).Microseconds()) / 1000
		}
	}()
	for p := range pieces {
		if !streaming && p.err != nil { // a streamed piece's error is known once its parts end
			return res, p.err
		}
		if res.FirstAudioMs == 0 && !streaming {
			res.FirstAudioMs = float64(time.Since(start).Microseconds()) / 1000
		}
		if v.bargedIn.Load() { // the candidate spoke between two sentences
			res.Interrupted = true
			return res, nil
		}
		pos := int64(-1)
		if v.cfg.recorder != nil {
			pos = v.cfg.recorder.Now()
		}
		var (
			pr     PlayResult
			err    error
			played Clip
		)
		if streaming {
			pr, played, err = v.playParts(ctx, p.parts)
			if err == nil && !pr.Interrupted {
				err = p.err // the voice failed part way: what came has played
			}
		} else {
			played = p.clip
			pr, err = v.sink.Play(ctx, p.clip)
		}
		res.Played += pr.Played
		res.Total += pr.Total
		if pos >= 0 {
			v.recordExaminer(pos, played, pr)
		}
		if pr.Interrupted || err != nil {
			res.Interrupted = pr.Interrupted
			if cut := cutText(sentences[p.idx], pr.Fraction()); cut != "" {
				heard = append(heard, cut)
			}
			return res, err
		}
		heard = append(heard, sentences[p.idx])
	}
	return res, nil
}

// playParts plays a sentence arriving on parts (PlayStream) and returns, with the result, the
// audio handed to the sink, which is what can have been heard.
func (v *Voice) playParts(ctx context.Context, parts <-chan Clip) (PlayResult, Clip, error) {
	var (
		mu   sync.Mutex
		sent Clip
	)
	stop := make(chan struct{})
	defer close(stop)
	fwd := RelayParts(parts, stop, func(c Clip) {
		mu.Lock()
		sent.Rate = c.Rate
		sent.Samples = append(sent.Samples, c.Samples...)
		mu.Unlock()
	})
	pr, err := PlayStream(ctx, v.sink, fwd)
	mu.Lock()
	defer mu.Unlock()
	return pr, Clip{Samples: sent.Samples[:len(sent.Samples):len(sent.Samples)], Rate: sent.Rate}, err
}

// recordExaminer writes what was heard of a clip that began playing at pos (on the recorder's
// timeline) where it was heard: the pauses of the line that fell during it sit on the track as
// silence, the clip's audio before and after them.
func (v *Voice) recordExaminer(pos int64, c Clip, pr PlayResult) {
	c16, err := c.To16k()
	if err != nil {
		return
	}
	n := min(len(c16.Samples), int(pr.Played*SampleRate/time.Second))
	v.pauseMu.Lock()
	holds := slices.Clone(v.holds)
	v.pauseMu.Unlock()
	for _, p := range heardAt(pos, n, holds) {
		if err := v.cfg.recorder.WriteAt(TrackExaminer, p.at, c16.Samples[p.from:p.to]); err != nil {
			if !errors.Is(err, ErrClosed) {
				v.cfg.log.Warn("recording examiner audio", "err", err)
			}
			return
		}
	}
}

// placed is a run of a clip's samples [from, to) and where on the timeline it was heard.
type placed struct {
	at       int64
	from, to int
}

// heardAt places the n samples of a clip that began playing at pos around the holds of its
// line (in order, on the same timeline): the samples play on from pos, and a hold they reach
// moves the rest to its end. A hold still on has no end: what the sink counted as played past
// its start (a buffer or two) stays where it was.
func heardAt(pos int64, n int, holds []hold) []placed {
	var out []placed
	at, i := pos, 0
	for _, h := range holds {
		if i == n {
			break
		}
		if h.to >= 0 && h.to <= at {
			continue // over before these samples
		}
		if k := int(min(int64(n-i), h.from-at)); k > 0 {
			out = append(out, placed{at: at, from: i, to: i + k})
			i += k
			at += int64(k)
		}
		if h.to < 0 {
			break
		}
		at = max(at, h.to)
	}
	if i < n {
		out = append(out, placed{at: at, from: i, to: n})
	}
	return out
}

// cutText keeps the words of s that fit in fraction of its characters.
func cutText(s string, fraction float64) string {
	if fraction >= 1 {
		return s
	}
	limit := int(fraction * float64(len(s)))
	words := strings.Fields(s)
	var out []string
	n := 0
	for _, w := range words {
		if n+len(w) > limit {
			break
		}
		out = append(out, w)
		n += len(w) + 1
	}
	return strings.Join(out, " ")
}

// PauseSpeaking holds the examiner's line where it is, when the sink is an audio.Pauser and a
// line is being said: nothing is dropped, and ResumeSpeaking plays on from the held sample.
// StopSpeaking (or a barge-in) cuts a held line as it would a playing one. It reports whether
// the line is held; it never blocks (the barge-in decision calls it on the capture loop).
func (v *Voice) PauseSpeaking() bool {
	p, ok := v.sink.(Pauser)
	if !ok {
		return false
	}
	v.pauseMu.Lock()
	defer v.pauseMu.Unlock()
	if !v.playing.Load() {
		return false
	}
	if !v.held {
		v.held = true
		if v.cfg.recorder != nil {
			v.holds = append(v.holds, hold{from: v.cfg.recorder.Now(), to: -1})
		}
		p.Pause()
	}
	return true
}

// ResumeSpeaking plays on a line PauseSpeaking held, from where it was held.
func (v *Voice) ResumeSpeaking() {
	v.pauseMu.Lock()
	defer v.pauseMu.Unlock()
	v.release()
}

// release ends a hold on the line, on the sink and on the recorder's timeline; v.pauseMu is
// held.
func (v *Voice) release() {
	if !v.held {
		return
	}
	v.held = false
	if n := len(v.holds); n > 0 && v.holds[n-1].to < 0 {
		v.holds[n-1].to = v.cfg.recorder.Now()
	}
	v.sink.(Pauser).Resume()
}

// endHold marks the line said: a hold still on (the line's last audio had left before the
// pause, or the line was cut) is released, so the next line plays.
func (v *Voice) endHold() {
	v.pauseMu.Lock()
	defer v.pauseMu.Unlock()
	v.playing.Store(false)
	v.release()
}

// StopSpeaking cuts the examiner's current line short (an immediate admin instruction, a
// pause); Speak returns with Interrupted set and what was heard so far.
func (v *Voice) StopSpeaking() {
	if v.sink == nil || !v.playing.Load() {
		return
	}
	v.bargedIn.Store(true)
	v.sink.Stop()
}

// Close stops the loop and closes the source and the sink. It is safe to call twice.
func (v *Voice) Close() error {
	var err error
	v.closeOnce.Do(func() {
		if v.cancel != nil {
			v.cancel()
		}
		if v.sink != nil {
			v.sink.Stop()
		}
		if v.src != nil {
			err = v.src.Close()
		}
		v.wg.Wait()
		if v.sink != nil {
			err = errors.Join(err, v.sink.Close())
		}
		if v.stream != nil {
			err = errors.Join(err, v.stream.Close())
		}
	})
	return err
}

// LooksUnfinished is a text turn detector: true when a partial transcript stops on a word that
// cannot end an English sentence (a conjunction, article, preposition or filler) or on a comma,
// so the endpointer should wait for MaxEndpointingDelay. Other languages: TrailingWords.
func LooksUnfinished(text string) bool { return englishTrailing.LooksUnfinished(text) }

// TrailingWords are the words of one language that cannot end a sentence (conjunctions,
// articles, prepositions) and its hesitation fillers: a partial transcript stopping on one
// holds the turn. An entry may be two words ("parce que"). The wiring builds them from the
// exam's language pack; the zero value is English.
type TrailingWords struct {
	one map[string]bool
	two map[string]bool
}

// NewTrailingWords builds the trailing words of a language from its word lists.
func NewTrailingWords(lists ...[]string) TrailingWords {
	w := TrailingWords{one: map[string]bool{}, two: map[string]bool{}}
	for _, l := range lists {
		for _, e := range l {
			f := strings.Fields(foldWord(e))
			switch len(f) {
			case 1:
				w.one[f[0]] = true
			case 2:
				w.two[f[0]+" "+f[1]] = true
			}
		}
	}
	return w
}

// LooksUnfinished is LooksUnfinished in the words' language.
func (w TrailingWords) LooksUnfinished(text string) bool {
	if w.one == nil {
		w = englishTrailing
	}
	text = strings.TrimSpace(text)
	if text == "" || text == InterimText {
		return false
	}
	if strings.HasSuffix(text, ",") || strings.HasSuffix(text, "،") || strings.HasSuffix(text, "...") ||
		strings.HasSuffix(text, "…") || strings.HasSuffix(text, "-") {
		return true
	}
	if strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "!") || strings.HasSuffix(text, "؟") {
		return false
	}
	words := strings.Fields(foldWord(text))
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if w.one[last] {
		return true
	}
	return len(words) >= 2 && w.two[words[len(words)-2]+" "+last]
}

// ClassifyTurn is ClassifyTurn in the words' language.
func (w TrailingWords) ClassifyTurn(text string) TurnEnd { return classifyTurn(w, text) }

// foldWord lowercases text for the trailing-word lookup, drops quotes and combining marks
// (Arabic short vowels), and folds the Arabic letters written interchangeably (hamza on alef,
// alef maqsura), so "لأن" and "لان" are one word.
func foldWord(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == '"' || r == '\'' || r == '(' || r == ')' || r == '«' || r == '»' || r == '“' || r == '”':
			b.WriteByte(' ')
		case unicode.Is(unicode.Mn, r) || r == '\u0640':
		case r == 'أ' || r == 'إ' || r == 'آ' || r == 'ٱ':
			b.WriteRune('ا')
		case r == 'ى':
			b.WriteRune('ي')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// englishTrailing are the English trailing words, the default.
var englishTrailing = NewTrailingWords([]string{
	"and", "but", "or", "so", "because", "if", "when", "that", "the", "a", "an", "to", "of", "in", "on", "at", "for",
	"with", "by", "from", "about", "like", "um", "uh", "er", "erm", "hmm", "my", "your", "is", "was", "are", "would",
	"could", "should", "will", "can", "i", "we", "then", "which",
})

// bargeInCheck cuts the examiner short once the barge-in decision (WithBargeInDecision;
// by default the candidate's turn over the examiner's line has DefaultBargeInSpeech of voiced
// audio: evidence of speech, not a level) says so. The barge-in is placed where the turn
// began. Capture loop only.
func (v *Voice) bargeInCheck(r EndpointResult, playing bool) {
	if v.bargeVoiced < 0 || !v.cfg.bargeIn {
		return
	}
	if !playing {
		v.bargeVoiced = -1 // the examiner finished first: nothing to cut
		return
	}
	if !r.TurnStarted && r.VAD.Voiced {
		v.bargeVoiced += FrameDuration
	}
	if !v.cfg.bargeDecide(BargeInEvidence{Voiced: v.bargeVoiced, Min: v.cfg.bargeInMin, TurnStartMs: v.bargeAtMs}) {
		return
	}
	v.bargeVoiced = -1
	v.bargedIn.Store(true)
	v.sink.Stop()
	v.emit(Event{Kind: EventBargeIn, AtMs: v.bargeAtMs})
}

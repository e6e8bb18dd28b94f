package livekit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// RoomVoice runs the local voice pipeline (audio.Voice: VAD, endpointing, recognition,
// sentence-by-sentence synthesis, barge-in) over a room instead of a sound card: the
// candidate's decoded microphone is its source and the bot's audio track its sink. Its Turns
// and Say methods are a Bot's AudioTurns and Speaker:
//
//	rv, _ := livekit.NewRoomVoice(room, recognizer, synthesizer)
//	bot, _ := livekit.NewBot(room, ctrl, livekit.WithAudioTurns(rv.Turns), livekit.WithSpeaker(rv.Say))
//	rv.OnBargeIn(bot.Interrupt)
type RoomVoice struct {
	src   *roomSource
	sink  *trackSink
	voice *audio.Voice
	log   *slog.Logger
	cfg   roomVoiceConfig

	mu        sync.Mutex
	submit    func(context.Context, runtime.Turn) error
	submitCtx context.Context
	onBargeIn func()
	started   atomic.Bool
}

type roomVoiceConfig struct {
	voiceOpts []audio.VoiceOption
	onEvent   func(audio.Event)
	language  string
	voiceName string
	log       *slog.Logger
	speculate func(context.Context, runtime.Turn) error
}

// RoomVoiceOption configures NewRoomVoice.
type RoomVoiceOption func(*roomVoiceConfig)

// WithVoiceOptions passes options to audio.NewVoice (endpointing, recorder, turn detector...).
// Barge-in is on by default in a room (the candidate's client cancels its own echo); pass
// audio.WithBargeIn(false) for half duplex.
func WithVoiceOptions(opts ...audio.VoiceOption) RoomVoiceOption {
	return func(c *roomVoiceConfig) { c.voiceOpts = append(c.voiceOpts, opts...) }
}

// WithVoiceEvents receives every voice event (levels, speech start and end, partials); it runs
// on the capture loop and must not block.
func WithVoiceEvents(fn func(audio.Event)) RoomVoiceOption {
	return func(c *roomVoiceConfig) { c.onEvent = fn }
}

// WithSpeechVoice sets the synthesizer's voice and language (e.g. "en-gb", "en-GB").
func WithSpeechVoice(voice, language string) RoomVoiceOption {
	return func(c *roomVoiceConfig) { c.voiceName, c.language = voice, language }
}

// WithSpeculation starts examiner work on the candidate's words during the end-of-turn wait
// (a Controller's Speculate): with the adaptive end of turn, a pause whose words read as an
// answer is handed over as the turn it will be if nothing more is said.
func WithSpeculation(fn func(context.Context, runtime.Turn) error) RoomVoiceOption {
	return func(c *roomVoiceConfig) { c.speculate = fn }
}

// WithRoomVoiceLogger sets the logger (default: the room's).
func WithRoomVoiceLogger(l *slog.Logger) RoomVoiceOption {
	return func(c *roomVoiceConfig) { c.log = l }
}

// NewRoomVoice builds the pipeline over room. rec recognises the candidate's turns; synth
// speaks the examiner's lines. Either may be nil: without rec the candidate's audio is only
// measured (levels, barge-in), without synth the examiner is silent and Say fails.
func NewRoomVoice(room *Room, rec audio.Recognizer, synth audio.Synthesizer, opts ...RoomVoiceOption) (*RoomVoice, error) {
	if room == nil {
		return nil, fmt.Errorf("%w: a room voice needs a room", ErrInvalidConfig)
	}
	cfg := roomVoiceConfig{log: room.log}
	for _, o := range opts {
		o(&cfg)
	}
	rv := &RoomVoice{log: cfg.log.With("component", "room-voice"), cfg: cfg}
	rv.src = newRoomSource(room.Audio(), rv.log)
	var sink audio.Sink
	if synth != nil {
		rv.sink = &trackSink{v: room.Voice()}
		sink = rv.sink
	}
	if rec == nil {
		rec = silentRecognizer{}
	}
	vopts := append([]audio.VoiceOption{
		audio.WithBargeIn(true),
		audio.WithVoiceLogger(rv.log),
		audio.WithOnEvent(rv.event),
		audio.WithOnTranscript(rv.transcript),
	}, cfg.voiceOpts...)
	if cfg.speculate != nil {
		vopts = append(vopts, audio.WithSpeculation(rv.speculation))
	}
	v, err := audio.NewVoice(rv.src, rec, synth, sink, vopts...)
	if err != nil {
		return nil, err
	}
	rv.voice = v
	return rv, nil
}

// OnBargeIn sets what happens when the candidate speaks over the examiner, after playback has
// been cut (a Bot's Interrupt drops the lines not yet said and reports the cut).
func (rv *RoomVoice) OnBargeIn(fn func()) {
	rv.mu.Lock()
	rv.onBargeIn = fn
	rv.mu.Unlock()
}

// Voice is the underlying pipeline (state, statistics).
func (rv *RoomVoice) Voice() *audio.Voice { return rv.voice }

func (rv *RoomVoice) event(e audio.Event) {
	if e.Kind == audio.EventBargeIn {
		rv.mu.Lock()
		fn := rv.onBargeIn
		rv.mu.Unlock()
		rv.log.Info("candidate barged in; examiner speech cleared", "atMs", e.AtMs)
		if fn != nil {
			fn()
		}
	}
	if rv.cfg.onEvent != nil {
		rv.cfg.onEvent(e)
	}
}

// transcript hands a recognised turn to the controller. It runs on the recognition worker, so
// a slow controller delays the next recognition, never the capture loop.
func (rv *RoomVoice) transcript(ft audio.FinalTranscript) {
	rv.mu.Lock()
	submit, ctx := rv.submit, rv.submitCtx
	rv.mu.Unlock()
	if submit == nil {
		return
	}
	if strings.TrimSpace(ft.Text) == "" {
		// Noise the VAD took for speech, or no recogniser: not a silent turn, which would
		// count against the candidate.
		rv.log.Debug("utterance without words ignored", "startMs", ft.StartMs, "durationMs", ft.DurationMs)
		return
	}
	if err := submit(ctx, turnOf(ft)); err != nil {
		rv.log.Warn("spoken turn not accepted", "text", ft.Text, "err", err)
	}
}

// turnOf is the controller's turn for a recognised one (the same for a speculation, so the
// controller can tell it is the same turn).
func turnOf(ft audio.FinalTranscript) runtime.Turn {
	dur := time.Duration(ft.DurationMs) * time.Millisecond
	since := time.Duration(ft.EndpointingMs+ft.STTMs) * time.Millisecond
	turn := runtime.Turn{
		Text:       ft.Text,
		Confidence: ft.Confidence,
		StartedAt:  time.Now().Add(-since - dur),
		Duration:   dur,
		Source:     runtime.SourceRoom,
		Latency:    runtime.Latency{EndpointingMs: ft.EndpointingMs, STTMs: ft.STTMs},
	}
	if !ft.HasConfidence {
		turn.Confidence = 1
	}
	if turn.Confidence < 0 || turn.Confidence > 1 {
		turn.Confidence = min(max(turn.Confidence, 0), 1)
	}
	return turn
}

// speculation hands the pause's words to the controller as the turn they will be if the
// candidate says nothing more.
func (rv *RoomVoice) speculation(ft audio.FinalTranscript) {
	rv.mu.Lock()
	ctx := rv.submitCtx
	rv.mu.Unlock()
	if ctx == nil || strings.TrimSpace(ft.Text) == "" {
		return
	}
	if err := rv.cfg.speculate(ctx, turnOf(ft)); err != nil {
		rv.log.Debug("speculation not started", "err", err)
	}
}

// Turns is a Bot's AudioTurns: it runs the pipeline on the room's candidate audio (frames must
// be the room's Audio channel) until ctx ends, submitting each recognised turn.
func (rv *RoomVoice) Turns(ctx context.Context, frames <-chan AudioFrame, submit func(context.Context, runtime.Turn) error) error {
	if !rv.started.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: room voice already running", ErrInvalidConfig)
	}
	rv.mu.Lock()
	rv.submit, rv.submitCtx = submit, ctx
	rv.mu.Unlock()
	rv.src.in = frames
	if err := rv.voice.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// Say is a Bot's Speaker: it synthesises the line sentence by sentence into the bot's track
// and returns when it has played or the candidate barged in.
func (rv *RoomVoice) Say(ctx context.Context, p runtime.SpokenPayload, _ *Voice) error {
	res, err := rv.voice.Speak(ctx, p.Text, audio.SpeakOptions{Speed: p.TTSSpeed, Voice: rv.cfg.voiceName, Language: rv.cfg.language})
	if ctx.Err() != nil {
		// The line was cut (the bot cancels its context): wherever it was, playing or being
		// synthesised, what was heard is what had played.
		return &SpeechInterruptedError{Heard: res.PlayedText}
	}
	if err != nil {
		return err
	}
	rv.log.Info("said", "node", p.NodeID, "firstAudioMs", res.FirstAudioMs, "played", res.Played.Round(time.Millisecond),
		"interrupted", res.Interrupted)
	if res.Interrupted {
		return &SpeechInterruptedError{Heard: res.PlayedText}
	}
	return nil
}

// Close stops the pipeline. The room and its track stay open.
func (rv *RoomVoice) Close() error { return rv.voice.Close() }

// silentRecognizer stands in when no recogniser is configured: turns are cut (so barge-in and
// levels work) but produce no text, and nothing is submitted.
type silentRecognizer struct{}

func (silentRecognizer) Transcribe(context.Context, audio.Utterance) (audio.Transcript, error) {
	return audio.Transcript{IsFinal: true}, nil
}

// roomSource re-frames the room's decoded candidate audio (frames of any length) into the
// 20 ms frames the VAD expects, on a wall-clock timeline (audio.LiveFramer): time in which no
// audio arrives (the candidate muted, left, lost the network, or their client uses Opus DTX)
// becomes silent frames, so a turn ends on the clock rather than when more audio happens to
// arrive. Samples are numbered from the first one received, so the turn timeline is continuous
// across the candidate's rejoins.
type roomSource struct {
	in     <-chan AudioFrame
	frames chan audio.Frame
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	start  sync.Once
	log    *slog.Logger
}

func newRoomSource(in <-chan AudioFrame, log *slog.Logger) *roomSource {
	return &roomSource{in: in, frames: make(chan audio.Frame, 50), stop: make(chan struct{}), done: make(chan struct{}), log: log}
}

func (s *roomSource) Frames() <-chan audio.Frame { return s.frames }

func (s *roomSource) Start(ctx context.Context) error {
	started := false
	s.start.Do(func() {
		started = true
		go s.run(ctx)
	})
	if !started {
		return audio.ErrAlreadyStarted
	}
	return nil
}

func (s *roomSource) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.frames)
	framer, err := audio.NewLiveFramer(audio.DefaultGapTolerance)
	if err != nil {
		s.log.Error("room audio framer", "err", err)
		return
	}
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	for {
		var out []audio.Frame
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case now := <-tick.C:
			out = framer.Tick(now)
		case f := <-s.in:
			at := f.Received
			if at.IsZero() {
				at = time.Now()
			}
			rate := f.SampleRate
			if rate <= 0 {
				rate = audio.SampleRate
			}
			if out, err = framer.Write(f.Samples, rate, at); err != nil {
				s.log.Warn("candidate audio dropped", "rate", rate, "err", err)
				continue
			}
		}
		for _, fr := range out {
			select {
			case s.frames <- fr:
			case <-ctx.Done():
				return
			case <-s.stop:
				return
			}
		}
	}
}

func (s *roomSource) Close() error {
	s.once.Do(func() { close(s.stop) })
	started := true
	s.start.Do(func() { started = false }) // never started: nothing to wait for
	if started {
		<-s.done
	}
	return nil
}

// trackSink plays clips into the bot's track: Write queues the whole clip and Play waits for it
// to have played; Stop (barge-in) or any other Clear of the track (an examiner's immediate
// instruction) ends it at once.
type trackSink struct {
	v *Voice
}

func (s *trackSink) Play(ctx context.Context, c audio.Clip) (audio.PlayResult, error) {
	rate := s.v.SampleRate()
	if c.Rate <= 0 || len(c.Samples) == 0 {
		return audio.PlayResult{}, nil
	}
	total := time.Duration(int64(len(c.Samples)) * int64(time.Second) / int64(c.Rate))
	stop := s.v.clearedCh()
	ahead := s.v.Queued()
	start := time.Now()
	if err := s.write(c, rate); err != nil {
		return audio.PlayResult{Total: total}, err
	}
	played := func() time.Duration { return min(max(time.Since(start)-ahead, 0), total) }
	t := time.NewTimer(s.v.Queued())
	defer t.Stop()
	select {
	case <-t.C:
		return audio.PlayResult{Played: total, Total: total}, nil
	case <-stop:
		return audio.PlayResult{Played: played(), Total: total, Interrupted: true}, nil
	case <-ctx.Done():
		s.v.Clear()
		return audio.PlayResult{Played: played(), Total: total, Interrupted: true}, ctx.Err()
	}
}

// firstChunk is how much of a clip is resampled and queued before the rest, so the first
// packet leaves without waiting for the whole sentence to be resampled.
const firstChunk = 40 * time.Millisecond

// write queues the clip on the track at rate.
func (s *trackSink) write(c audio.Clip, rate int) error {
	if c.Rate == rate {
		return s.v.Write(c.Samples)
	}
	rs, err := audio.NewResampler(c.Rate, rate)
	if err != nil {
		return err
	}
	n := min(len(c.Samples), int(int64(c.Rate)*int64(firstChunk)/int64(time.Second)))
	if err := s.v.Write(rs.Process(c.Samples[:n], nil)); err != nil {
		return err
	}
	return s.v.Write(rs.Flush(rs.Process(c.Samples[n:], nil)))
}

func (s *trackSink) Stop() { s.v.Clear() }

// Close leaves the track to the room, which owns it.
func (s *trackSink) Close() error { return nil }

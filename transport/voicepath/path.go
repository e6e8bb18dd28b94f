package voicepath

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Controller is the part of the exam runtime a voice path drives; *runtime.Controller
// implements it. Exam is the compiled exam (nil: none), read once by New: each spoken line is
// said in the voice, language and speed of its node's persona (persona.go), on every path
// alike. The other methods may be called from any of the path's goroutines, never from
// Deliver (the controller may hold its lock while it delivers an event).
type Controller interface {
	Exam() *spec.Exam
	SubmitTurn(ctx context.Context, t runtime.Turn) error
	Speculate(ctx context.Context, t runtime.Turn) error
	Interim(text string, confidence float64) error
	UserActivity(speaking bool)
	SpeechInterrupted(heard string) error
	SpeechDone()
	// Overheard records words that took no turn (a backchannel held over the examiner's line)
	// with the reason they were not assessed.
	Overheard(ctx context.Context, t runtime.Turn, reason runtime.NotAssessedReason, detail string) error
}

// Parts are what a transport brings. Source and Recognizer come together (the candidate
// speaks), Synthesizer and Sink together (the examiner speaks); either pair may be missing,
// not both. New takes ownership of Source and Sink (Close closes them).
type Parts struct {
	Source      audio.Source
	Recognizer  audio.Recognizer
	Synthesizer audio.Synthesizer
	Sink        audio.Sink
}

// Path is one exam's voice path: the candidate's speech to turns, the examiner's spoken lines
// to speech, and the interruptions between them.
type Path struct {
	ctrl Controller
	exam *spec.Exam
	cfg  config
	log  *slog.Logger
	v    *audio.Voice
	// lang is the exam's language pack (nil: English); trailing its end-of-turn words.
	lang     *lang.Pack
	trailing audio.TrailingWords

	queue     *speechQueue
	turns     chan audio.FinalTranscript
	activity  chan bool
	ttsFirst  atomic.Uint64 // math.Float64bits of the latest first-audio latency (ms)
	heard     atomic.Pointer[audio.SpeakResult]
	gateMu    sync.Mutex
	gate      bargeGate   // what the candidate's sounds over the examiner's line do to it (bargein.go)
	gateTimer *time.Timer // the gate's timeout (gateTimeout)
	cutOpen   atomic.Bool // a barge-in was reported and no turn has reached the controller since
	nodeMu    sync.Mutex
	nodeID    string
	timer     timer
	stamp     *playStamp         // the sink, noting when each reply starts playing
	warm      []any              // the providers, warmed at Start (audio.Warm)
	speech    *audio.SpeechCache // the lines said, said again at once (nil: no synthesiser)
	prep      *preparedSynth     // the synthesizer, with a first sentence prepared during a pause (prepare.go); nil: none
	prepWG    sync.WaitGroup     // prepareReply's goroutines

	started   atomic.Bool
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// New builds a path over parts for ctrl; Start runs it.
func New(ctrl Controller, parts Parts, opts ...Option) (*Path, error) {
	if ctrl == nil {
		return nil, fmt.Errorf("%w: a voice path needs a controller", ErrInvalidConfig)
	}
	cfg := config{source: runtime.SourceMic, speed: 1, endpoint: audio.DefaultEndpointConfig(), log: slog.New(slog.DiscardHandler),
		vocab: vocabularyOf(ctrl), backchannel: DefaultBackchannelLength, pauseAfter: DefaultPauseAfter, falseCut: DefaultFalseCutTimeout}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			closeParts(parts)
			return nil, err
		}
	}
	p := &Path{ctrl: ctrl, exam: ctrl.Exam(), cfg: cfg, log: cfg.log, queue: newSpeechQueue(),
		turns: make(chan audio.FinalTranscript, 8), activity: make(chan bool, 8), warm: []any{parts.Recognizer, parts.Synthesizer}}
	p.gate = bargeGate{pauseAfter: cfg.pauseAfter, cutAfter: cfg.backchannel, timeout: cfg.falseCut}
	p.gateTimer = time.AfterFunc(time.Hour, p.gateTimeout)
	p.gateTimer.Stop()
	p.lang = languageOf(ctrl)
	p.trailing = TrailingWords(p.lang)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if parts.Sink != nil {
		p.stamp = &playStamp{Sink: parts.Sink}
		parts.Sink = pausable(p.stamp, parts.Sink)
	}
	if parts.Synthesizer != nil {
		p.speech = audio.NewSpeechCache(parts.Synthesizer, speechCacheBytes)
		parts.Synthesizer = p.speech
	}
	if _, ok := ctrl.(lineSpeculator); ok && parts.Synthesizer != nil && cfg.endOfTurn == EndAdaptive {
		p.prep = &preparedSynth{Synthesizer: parts.Synthesizer, log: cfg.log}
		parts.Synthesizer = p.prep
	}
	vopts := []audio.VoiceOption{audio.WithBargeIn(cfg.bargeIn), audio.WithBargeInDecision(p.bargeInDecision), audio.WithVoiceLogger(cfg.log),
		audio.WithOnEvent(p.onEvent), audio.WithOnTranscript(p.onTranscript)}
	vopts = append(vopts, p.endOfTurnOptions()...)
	vopts = append(vopts, cfg.audioOpts...)
	v, err := audio.NewVoice(parts.Source, parts.Recognizer, parts.Synthesizer, parts.Sink, vopts...)
	if err != nil {
		p.cancel()
		closeParts(parts)
		return nil, err
	}
	p.v = v
	return p, nil
}

func closeParts(p Parts) {
	if p.Source != nil {
		_ = p.Source.Close()
	}
	if p.Sink != nil {
		_ = p.Sink.Close()
	}
}

// Start runs the path until ctx ends or Close: capture and recognition when it can listen,
// the speaker when it can speak.
func (p *Path) Start(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	stop := context.AfterFunc(ctx, p.cancel)
	go func() { <-p.ctx.Done(); stop() }()
	// Warm the providers while the candidate joins, so the first turns are as fast as the rest.
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		wctx, cancel := context.WithTimeout(p.ctx, warmTimeout)
		defer cancel()
		start := time.Now()
		if err := audio.Warm(wctx, p.warm...); err != nil {
			p.log.Info("voice: a provider was not warmed", "err", err)
		}
		p.log.Debug("voice: providers warmed", "took", time.Since(start).Round(time.Millisecond))
	}()
	if p.v.CanListen() {
		// Turns go to the controller one at a time (SubmitTurn waits for the examiner, an LLM
		// call perhaps); activity is reported off the capture loop, because the controller's
		// lock may be held while it stores events.
		goEach(p, p.turns, p.submit)
		goEach(p, p.activity, p.ctrl.UserActivity)
	}
	if p.v.CanSpeak() {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.runSpeech(p.ctx) }()
	}
	return p.v.Start(p.ctx)
}

// goEach runs fn with each value from ch, in order, until the path closes.
func goEach[T any](p *Path, ch <-chan T, fn func(T)) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			select {
			case <-p.ctx.Done():
				return
			case v := <-ch:
				fn(v)
			}
		}
	}()
}

// speechCacheBytes is how much of an exam's speech its voice path keeps (audio.SpeechCache):
// about 3 minutes at 48 kHz, far more than the short lines that come again.
const speechCacheBytes = 16 << 20

// warmTimeout bounds warming the providers at Start.
const warmTimeout = 10 * time.Second

// Audio is the underlying pipeline (state, statistics, listening on or off).
func (p *Path) Audio() *audio.Voice { return p.v }

// CanListen says the path recognises the candidate's speech; CanSpeak that it says the
// examiner's lines.
func (p *Path) CanListen() bool { return p.v.CanListen() }

// CanSpeak says the path says the examiner's lines aloud.
func (p *Path) CanSpeak() bool { return p.v.CanSpeak() }

// LastHeard is what the candidate heard of the latest examiner line that was cut (barge-in,
// stop, pause, immediate instruction); nil when none was.
func (p *Path) LastHeard() *audio.SpeakResult { return p.heard.Load() }

// Idle reports that no examiner line is queued or being said.
func (p *Path) Idle() bool { return p.queue.idle() }

// WaitIdle blocks until the examiner has said every line queued so far, or ctx ends: a bot
// leaving at the end of an exam lets the closing words reach the candidate first. The queue
// signals every change that can leave it idle (a line said or cut, lines dropped), so this
// waits on that and nothing else.
func (p *Path) WaitIdle(ctx context.Context) error {
	for {
		change := p.queue.waitChange() // taken before the check, so no change is missed
		if p.Idle() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.ctx.Done():
			return ErrClosed
		case <-change:
		}
	}
}

func (p *Path) ttsFirstMs() float64 { return math.Float64frombits(p.ttsFirst.Load()) }

// onEvent runs on the capture loop (and the recogniser and speaker goroutines): it never blocks.
func (p *Path) onEvent(e audio.Event) {
	switch e.Kind {
	case audio.EventSpeechStarted, audio.EventSpeechEnded:
		select {
		case p.activity <- e.Kind == audio.EventSpeechStarted:
		default:
		}
	case audio.EventBargeIn:
		p.bargedIn(e.AtMs)
	case audio.EventError:
		p.log.Warn("voice: a turn was lost", "err", e.Err)
	}
	if p.cfg.onEvent != nil {
		p.cfg.onEvent(e)
	}
}

// Close stops the path: the speaker, capture and playback (it closes the source and sink).
// It is safe to call twice.
func (p *Path) Close() error {
	p.closeOnce.Do(func() {
		p.cancel()
		p.gateTimer.Stop()
		p.v.StopSpeaking()
		p.wg.Wait()
		p.closeErr = p.v.Close()
		p.prepWG.Wait() // after the pipeline, which starts them
		if st := p.Prepared(); st.Prepared > 0 {
			p.log.Info("voice: first sentences prepared during pauses", "prepared", st.Prepared, "used", st.Used, "discarded", st.Discarded)
		}
		if st := p.v.Stats(); st.EarlyReads > 0 {
			p.log.Info("voice: pauses read from their first quiet frames", "read", st.EarlyReads, "dropped", st.EarlyDropped,
				"pauses_learned", st.PausesLearned, "learned_wait_ms", st.LearnedWait.Milliseconds())
		}
		if p.speech != nil {
			if st := p.speech.Stats(); st.Hits > 0 {
				p.log.Info("voice: lines said again from the speech cache", "hits", st.Hits, "misses", st.Misses)
			}
		}
	})
	return p.closeErr
}

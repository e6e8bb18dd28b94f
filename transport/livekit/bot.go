package livekit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/voicepath"
)

// Controller is the part of the exam runtime the bot drives; *runtime.Controller implements it.
type Controller interface {
	SubmitTurn(ctx context.Context, t runtime.Turn) error
	Admin(ctx context.Context, a runtime.AdminInstruction) error
	Control(ctx context.Context, a runtime.ControlAction, sender string) error
}

// presenceRecorder is implemented by controllers that record the candidate joining, leaving and
// rejoining the room (runtime.Controller.CandidatePresence).
type presenceRecorder interface {
	CandidatePresence(ctx context.Context, p runtime.Presence) error
}

// presenceKeeper is implemented by controllers that know who is in the room before the bot has
// looked: a resumed session's candidates (runtime.Controller.PresentCandidates).
type presenceKeeper interface{ PresentCandidates() []string }

// BotOption configures NewBot.
type BotOption func(*Bot)

// WithVoice gives the bot a voice: the voice path (transport/voicepath) over the room's audio.
// rec recognises the candidate's speech (nil: the candidate's audio is discarded and only
// typed answers reach the controller); synth says the examiner's lines into the bot's track
// (nil: they reach the candidate only as spoken events on the data channel). The controller
// must be a voicepath.Controller (*runtime.Controller is). Barge-in is on by default in a
// room, since the candidate's client cancels its own echo: pass voicepath.WithBargeIn(false)
// for half duplex. opts follow the room's own, so they may override them.
func WithVoice(rec audio.Recognizer, synth audio.Synthesizer, opts ...voicepath.Option) BotOption {
	return func(b *Bot) { b.voiceCfg = &botVoice{rec: rec, synth: synth, opts: opts} }
}

type botVoice struct {
	rec   audio.Recognizer
	synth audio.Synthesizer
	opts  []voicepath.Option
}

// WithBotLogger sets the bot's logger (default: the room's).
func WithBotLogger(l *slog.Logger) BotOption { return func(b *Bot) { b.log = l } }

// Bot is the examiner bot: it feeds a controller from a room (typed answers and audio turns
// from the candidate, instructions and controls from examiners) and the controller's events
// back to the room (the data channel, and speech). Put the Bot, not the Room, in the
// controller's event fan-out (it is a runtime.Subscriber and a runtime.Sink) so that spoken
// events are also said aloud.
type Bot struct {
	room     *Room
	ctrl     Controller
	log      *slog.Logger
	voiceCfg *botVoice
	voice    *voicepath.Path // nil without WithVoice
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	once     sync.Once
}

// NewBot wires ctrl to room and starts the audio and speech goroutines; Close stops them (it
// does not close the room or the controller).
func NewBot(room *Room, ctrl Controller, opts ...BotOption) (*Bot, error) {
	if room == nil || ctrl == nil {
		return nil, fmt.Errorf("%w: a bot needs a room and a controller", ErrInvalidConfig)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bot{room: room, ctrl: ctrl, log: room.log, ctx: ctx, cancel: cancel}
	for _, o := range opts {
		o(b)
	}
	if b.voiceCfg != nil {
		if err := b.newVoice(); err != nil {
			cancel()
			return nil, err
		}
	}
	room.SetHandlers(Handlers{CandidateText: b.onText, ExaminerCommand: b.onCommand, Presence: b.onPresence})
	if pk, ok := ctrl.(presenceKeeper); ok {
		room.presence.expect(pk.PresentCandidates())
	}
	if b.voice != nil {
		if err := b.voice.Start(ctx); err != nil {
			b.log.Error("the voice path did not start", "err", err)
			b.room.ReportError(runtime.CodeAudioPipelineFailed, fmt.Sprintf("candidate audio is not processed: %v", err))
		}
	}
	if b.voice == nil || !b.voice.CanListen() {
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.drainAudio(ctx) }()
	}
	return b, nil
}

// newVoice builds the bot's voice path over the room's audio: the candidate's decoded
// microphone (when there is a recogniser) and the bot's track (when there is a synthesizer).
func (b *Bot) newVoice() error {
	vc, ok := b.ctrl.(voicepath.Controller)
	if !ok {
		return fmt.Errorf("%w: a bot with a voice needs a voicepath.Controller, not %T", ErrInvalidConfig, b.ctrl)
	}
	cfg := b.voiceCfg
	log := b.log.With("component", "room-voice")
	parts := voicepath.Parts{Recognizer: cfg.rec, Synthesizer: cfg.synth}
	if cfg.rec != nil {
		parts.Source = newRoomSource(b.room.Audio(), log)
	}
	track := b.room.Voice()
	if cfg.synth != nil {
		parts.Sink = &trackSink{v: track}
	}
	opts := append([]voicepath.Option{
		voicepath.WithSource(runtime.SourceRoom), voicepath.WithBargeIn(true), voicepath.WithLogger(log),
		voicepath.WithFirstLineWait(func(ctx context.Context) bool { return track.WaitListener(ctx, ListenerWait) }),
		voicepath.WithPlayoutWait(track.WaitPlayout),
		voicepath.WithLineEnd(b.room.SendLineEnd),
		voicepath.WithSpeechErrors(func(text string, err error) {
			b.room.ReportError(runtime.CodeSpeechFailed, fmt.Sprintf("could not say %q: %v", text, err))
		}),
	}, cfg.opts...)
	p, err := voicepath.New(vc, parts, opts...)
	if err != nil {
		return err
	}
	b.voice = p
	return nil
}

// Room is the bot's room.
func (b *Bot) Room() *Room { return b.room }

// Voice is the bot's voice path, nil without WithVoice.
func (b *Bot) Voice() *voicepath.Path { return b.voice }

// Publish sends the event to the room and hands it to the voice path, which says spoken lines.
func (b *Bot) Publish(ev runtime.Event) error {
	if b.voice != nil {
		b.voice.Deliver(ev)
	}
	return b.room.Publish(ev)
}

// Deliver is Publish for a runtime.Fanout subscriber.
func (b *Bot) Deliver(ev runtime.Event) {
	if err := b.Publish(ev); err != nil {
		b.log.Warn("event not sent to the room", "seq", ev.Seq, "err", err)
	}
}

func (b *Bot) onText(m CandidateText) {
	if m.Stop {
		b.onStop(m)
		return
	}
	err := b.ctrl.SubmitTurn(b.ctx, runtime.Turn{Text: m.Text, Confidence: m.Confidence, Source: runtime.SourceTyped})
	if err != nil {
		b.log.Warn("typed answer not accepted", "from", m.Sender, "err", err)
		b.room.ReportError(runtime.CodeCandidateInputFailed, fmt.Sprintf("typed answer from %s not accepted: %v", m.Sender, err))
	}
}

// onStop honours the candidate's native interrupt: the current line is cut and the lines not
// yet said are dropped, as when the candidate barges in. The voice path then reports what was
// heard, and the controller decides what that means for the exam.
func (b *Bot) onStop(m CandidateText) {
	b.log.Info("candidate asked the examiner to stop", "from", m.Sender, "speaking", b.voice != nil && !b.voice.Idle())
	b.interrupt(voicepath.CauseStop)
}

func (b *Bot) onPresence(p CandidatePresence) {
	pr, ok := b.ctrl.(presenceRecorder)
	if !ok {
		return
	}
	if err := pr.CandidatePresence(b.ctx, runtime.Presence{Identity: p.Identity, Present: p.Present, Reason: p.Reason}); err != nil {
		b.log.Warn("candidate presence not recorded", "identity", p.Identity, "present", p.Present, "err", err)
	}
}

func (b *Bot) onCommand(c ExaminerCommand) {
	var err error
	switch c.Kind {
	case CommandAdmin:
		if c.Mode.Interrupts() {
			// An immediate instruction or a line to say interrupts the examiner mid-sentence.
			b.interrupt(voicepath.CauseInstruction)
		}
		err = b.ctrl.Admin(b.ctx, runtime.AdminInstruction{Mode: c.Mode, Text: c.Text, Sender: c.Sender})
	case CommandControl:
		var action runtime.ControlAction
		action, err = runtime.ParseControlAction(c.Action.String())
		if err == nil {
			if c.Action == runtime.ControlPause || c.Action == runtime.ControlEnd || c.Action == runtime.ControlSkip || c.Action == runtime.ControlAdvance || c.Action == runtime.ControlPromote {
				b.interrupt(voicepath.CauseCommand) // the controller knows of this cut: not reported
			}
			err = b.ctrl.Control(b.ctx, action, c.Sender)
		}
	default:
		err = fmt.Errorf("%w: command kind %v", ErrInvalidMessage, c.Kind)
	}
	if err != nil {
		b.log.Warn("examiner command failed", "from", c.Sender, "kind", c.Kind.String(), "err", err)
		b.room.ReportError(runtime.CodeExaminerCommandFailed, fmt.Sprintf("%s from %s failed: %v", c.Kind, c.Sender, err))
	}
}

// interrupt cuts the examiner short (voicepath.Path.Interrupt) and clears the audio queued
// on the track. It acts before the command reaches the controller, so the examiner stops at
// once, not after the controller has dealt with it.
func (b *Bot) interrupt(c voicepath.Cause) {
	if b.voice != nil {
		b.voice.Interrupt(c)
	}
	b.room.Voice().Clear()
}

// drainAudio discards the candidate's audio when nothing listens to it.
func (b *Bot) drainAudio(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.room.Audio():
		}
	}
}

// WaitIdle blocks until the examiner has said every line queued so far (or ctx ends): a bot
// leaving at the end of an exam lets the closing words reach the candidate first.
// It waits on events (the speech queue's changes, the track's queue emptied), not a poll.
func (b *Bot) WaitIdle(ctx context.Context) error {
	for (b.voice != nil && !b.voice.Idle()) || b.room.Voice().Queued() > 0 {
		if b.voice != nil {
			if err := b.voice.WaitIdle(ctx); err != nil {
				if b.ctx.Err() != nil {
					return ErrClosed
				}
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.ctx.Done():
			return ErrClosed
		case <-b.room.Voice().Sent():
		}
	}
	return nil
}

// Close stops the bot's goroutines and its voice path. It is safe to call more than once.
func (b *Bot) Close() error {
	var err error
	b.once.Do(func() {
		b.cancel()
		b.wg.Wait()
		if b.voice != nil {
			err = b.voice.Close()
		}
	})
	return err
}

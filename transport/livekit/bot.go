package livekit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/examtui/examtui/runtime"
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

// speechInterrupter is implemented by controllers that want to know the candidate cut the
// examiner short and what was heard (runtime.Controller.SpeechInterrupted): the examiner's
// context then keeps only what the candidate heard.
type speechInterrupter interface{ SpeechInterrupted(heard string) error }

// speechDoner is implemented by controllers that want to know when the examiner's speech has
// finished playing (runtime.Controller.SpeechDone).
type speechDoner interface{ SpeechDone() }

// AudioTurns turns the candidate's room audio into turns (VAD, endpointing, STT): it reads
// frames until ctx ends and calls submit with each finished turn. The audio pipeline provides it.
type AudioTurns func(ctx context.Context, audio <-chan AudioFrame, submit func(context.Context, runtime.Turn) error) error

// Speaker says one spoken event's text through the bot's voice (TTS, then Voice.Write). It may
// return before the audio has played; the bot waits for playout before the next line. A line
// cut short (a barge-in, a stop) returns a *SpeechInterruptedError saying what was heard.
type Speaker func(ctx context.Context, spoken runtime.SpokenPayload, voice *Voice) error

// BotOption configures NewBot.
type BotOption func(*Bot)

// WithAudioTurns connects the audio pipeline. Without it the candidate's audio is discarded and
// only typed answers reach the controller.
func WithAudioTurns(fn AudioTurns) BotOption { return func(b *Bot) { b.audioTurns = fn } }

// WithSpeaker connects text-to-speech. Without it the examiner's lines reach the candidate only
// as spoken events on the data channel.
func WithSpeaker(fn Speaker) BotOption { return func(b *Bot) { b.speaker = fn } }

// WithBotLogger sets the bot's logger (default: the room's).
func WithBotLogger(l *slog.Logger) BotOption { return func(b *Bot) { b.log = l } }

// Bot is the examiner bot: it feeds a controller from a room (typed answers and audio turns
// from the candidate, instructions and controls from examiners) and the controller's events
// back to the room (the data channel, and speech). Put the Bot, not the Room, in the
// controller's event fan-out (it is a runtime.Subscriber and a runtime.Sink) so that spoken
// events are also said aloud.
type Bot struct {
	room       *Room
	ctrl       Controller
	log        *slog.Logger
	audioTurns AudioTurns
	speaker    Speaker
	spoken     *queue[runtime.SpokenPayload]
	pending    atomic.Int64 // lines queued or being said
	// commandCut: the line being said was cut by an examiner's command, which the controller
	// knows of already; any other cut is the candidate's and is reported to it. It is set
	// before the cut, so the speech goroutine sees it when the line returns.
	commandCut atomic.Bool
	lineMu     sync.Mutex
	cutLine    context.CancelFunc // cancels the context of the line being said
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	once       sync.Once
}

// NewBot wires ctrl to room and starts the audio and speech goroutines; Close stops them (it
// does not close the room or the controller).
func NewBot(room *Room, ctrl Controller, opts ...BotOption) (*Bot, error) {
	if room == nil || ctrl == nil {
		return nil, fmt.Errorf("%w: a bot needs a room and a controller", ErrInvalidConfig)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bot{room: room, ctrl: ctrl, log: room.log, spoken: newQueue[runtime.SpokenPayload](), ctx: ctx, cancel: cancel}
	for _, o := range opts {
		o(b)
	}
	room.SetHandlers(Handlers{CandidateText: b.onText, ExaminerCommand: b.onCommand, Presence: b.onPresence})
	if pk, ok := ctrl.(presenceKeeper); ok {
		room.presence.expect(pk.PresentCandidates())
	}
	b.wg.Add(2)
	go func() { defer b.wg.Done(); b.runAudio(ctx) }()
	go func() { defer b.wg.Done(); b.runSpeech(ctx) }()
	return b, nil
}

// Room is the bot's room.
func (b *Bot) Room() *Room { return b.room }

// Publish sends the event to the room and queues spoken lines for the speaker.
func (b *Bot) Publish(ev runtime.Event) error {
	if ev.Event == runtime.EventSpoken && b.speaker != nil {
		p, err := ev.Decode()
		if err != nil {
			b.log.Error("spoken event does not decode; not said aloud", "seq", ev.Seq, "err", err)
		} else {
			b.pending.Add(1)
			b.spoken.push(*p.(*runtime.SpokenPayload))
		}
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
// yet said are dropped, as when the candidate barges in. The speaker then reports what was
// heard, and the controller decides what that means for the exam (runSpeech).
func (b *Bot) onStop(m CandidateText) {
	b.log.Info("candidate asked the examiner to stop", "from", m.Sender, "speaking", b.pending.Load() > 0)
	b.Interrupt()
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
			b.Interrupt()
		}
		err = b.ctrl.Admin(b.ctx, runtime.AdminInstruction{Mode: c.Mode, Text: c.Text, Sender: c.Sender})
	case CommandControl:
		var action runtime.ControlAction
		action, err = runtime.ParseControlAction(c.Action.String())
		if err == nil {
			if c.Action == runtime.ControlPause || c.Action == runtime.ControlEnd || c.Action == runtime.ControlSkip || c.Action == runtime.ControlAdvance || c.Action == runtime.ControlPromote {
				b.commandInterrupt()
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

// commandInterrupt is Interrupt for an examiner's command: the cut is not the candidate's.
func (b *Bot) commandInterrupt() {
	if b.pending.Load() > 0 {
		b.commandCut.Store(true)
	}
	b.Interrupt()
}

// Interrupt drops what the examiner has not said yet and clears the audio queued on the track:
// the candidate barging in (RoomVoice.OnBargeIn) or asking to stop cuts the examiner short, and
// the line cut is reported to the controller with what the candidate heard (runSpeech).
//
// Clearing the track alone missed a line between two of its sentences (the next one was being
// synthesised, so nothing was queued to clear) or just taken off the queue: it then played on.
// The line's context is cancelled too, wherever the speaker is in it.
func (b *Bot) Interrupt() {
	for b.spoken.len() > 0 {
		if _, ok := b.spoken.pop(b.ctx); !ok {
			return
		}
		b.pending.Add(-1)
	}
	if b.pending.Load() > 0 { // a line is being said (pending counts it until it has played)
		b.lineMu.Lock()
		if b.cutLine != nil {
			b.cutLine()
		}
		b.lineMu.Unlock()
	}
	b.room.Voice().Clear()
}

// setLine installs the cancel of the next line's context (nil: none).
func (b *Bot) setLine(cancel context.CancelFunc) {
	b.lineMu.Lock()
	b.cutLine = cancel
	b.lineMu.Unlock()
}

func (b *Bot) runAudio(ctx context.Context) {
	if b.audioTurns == nil {
		for {
			select {
			case <-ctx.Done():
				return
			case <-b.room.Audio():
			}
		}
	}
	err := b.audioTurns(ctx, b.room.Audio(), func(ctx context.Context, t runtime.Turn) error {
		if t.Source == "" {
			t.Source = runtime.SourceRoom
		}
		return b.ctrl.SubmitTurn(ctx, t)
	})
	if err != nil && ctx.Err() == nil {
		b.log.Error("audio turns stopped", "err", err)
		b.room.ReportError(runtime.CodeAudioPipelineFailed, fmt.Sprintf("candidate audio is no longer processed: %v", err))
	}
}

func (b *Bot) runSpeech(ctx context.Context) {
	if b.speaker == nil {
		return
	}
	voice := b.room.Voice()
	waited := false
	for {
		// The line's context exists before the line is taken, so an interruption that comes
		// as it is taken still reaches it.
		lctx, cancel := context.WithCancel(ctx)
		b.setLine(cancel)
		p, ok := b.spoken.pop(ctx)
		if !ok {
			cancel()
			return
		}
		// The first line (the opening) waits, bounded, until someone can hear it.
		if !waited {
			waited = true
			if !voice.WaitListener(ctx, ListenerWait) && ctx.Err() == nil {
				b.log.Warn("nobody subscribed to the examiner's voice; speaking anyway", "waited", ListenerWait)
			}
		}
		err := b.speaker(lctx, p, voice)
		wasCut := lctx.Err() != nil && ctx.Err() == nil
		b.setLine(nil)
		cancel()
		var cut *SpeechInterruptedError
		if !errors.As(err, &cut) && wasCut && err != nil {
			cut = &SpeechInterruptedError{} // cut before any of it played
		}
		if cut != nil && ctx.Err() == nil {
			if !b.commandCut.Swap(false) {
				b.interrupted(cut.Heard)
			}
			err = nil
		} else if err == nil {
			b.commandCut.Store(false)
		}
		if err != nil {
			b.pending.Add(-1)
			if ctx.Err() != nil {
				return
			}
			b.log.Warn("speech failed", "node", p.NodeID, "err", err)
			b.room.ReportError(runtime.CodeSpeechFailed, fmt.Sprintf("could not say %q: %v", p.Text, err))
			continue
		}
		err = voice.WaitPlayout(ctx)
		b.pending.Add(-1)
		if err != nil {
			return
		}
		if d, ok := b.ctrl.(speechDoner); ok && b.spoken.len() == 0 {
			d.SpeechDone()
		}
	}
}

// interrupted tells the controller a line was cut short after heard.
func (b *Bot) interrupted(heard string) {
	si, ok := b.ctrl.(speechInterrupter)
	if !ok {
		return
	}
	if err := si.SpeechInterrupted(heard); err != nil {
		b.log.Warn("interruption not recorded", "err", err)
	}
}

// WaitIdle blocks until the examiner has said every line queued so far (or ctx ends): a bot
// leaving at the end of an exam lets the closing words reach the candidate first.
func (b *Bot) WaitIdle(ctx context.Context) error {
	for b.pending.Load() > 0 || b.room.Voice().Queued() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.ctx.Done():
			return ErrClosed
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Close stops the bot's goroutines. It is safe to call more than once.
func (b *Bot) Close() error {
	b.once.Do(func() {
		b.cancel()
		b.wg.Wait()
	})
	return nil
}

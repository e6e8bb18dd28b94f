package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// BotSpeechRate is the sample rate of the bot's voice track.
const BotSpeechRate = 48000

// replayTimeout bounds one read of past events from the store for a joining participant.
const replayTimeout = 10 * time.Second

// RoomOptions say how an exam's bot joins a LiveKit room.
type RoomOptions struct {
	// Config is the server and the bot's credentials (a token, or a key, secret, room and
	// identity to mint one with the bot role).
	Config livekit.Config
	// Recognizer turns the candidate's speech into turns; nil: typed answers only.
	Recognizer audio.Recognizer
	// Synthesizer speaks the examiner's lines into the bot's track; nil: the lines reach the
	// candidate only as spoken events.
	Synthesizer audio.Synthesizer
	// VoiceOptions tune the room's voice path (end of turn, barge-in, default voice). The
	// exam's personas' voices apply on their own.
	VoiceOptions []voicepath.Option
	// RoomOptions are passed to livekit.Join (backoff, connect options, state changes).
	RoomOptions []livekit.Option
	// OnVoiceEvent, when set, sees every voice event (levels for a meter); it must not block.
	OnVoiceEvent func(audio.Event)
}

// RoomBot is an exam's examiner bot in a LiveKit room.
type RoomBot struct {
	Room *livekit.Room
	Bot  *livekit.Bot
	// Voice is the bot's voice path (Bot.Voice), nil without a recognizer and a synthesizer.
	Voice *voicepath.Path

	log  *slog.Logger
	name string // the room's name, for logs
}

// JoinRoom joins the room as the exam's bot: it publishes the exam's committed events to the
// room (whole to examiners, the candidate's view to the candidate), replays them from the
// session store to anyone who joins or rejoins, hands typed and spoken candidate answers and
// examiners' commands to the controller, and says the examiner's lines into its track. Call it
// after Open and before Start; the exam need not wait for the candidate (see WaitCandidate).
func (x *Exam) JoinRoom(ctx context.Context, o RoomOptions) (*RoomBot, error) {
	if x.Controller == nil {
		return nil, errors.New("join room: the exam is not open")
	}
	// A bot joined by token alone (a worker's job, whose log names the room already) has no
	// Config.Room: adding it would log the room twice, the second time empty.
	log := x.log
	if o.Config.Room != "" {
		log = log.With("room", o.Config.Room)
	}
	// The bot's track runs at Opus's own 48 kHz so the SDK does not resample the examiner's
	// speech again on its way out: about 10 ms less to the first packet (BenchmarkBotAddedLatency).
	opts := []livekit.Option{livekit.WithLogger(log), livekit.WithSpeechSampleRate(BotSpeechRate)}
	if x.Store != nil {
		store, id := x.Store, x.SessionID
		opts = append(opts, livekit.WithReplay(func(from int64) []runtime.Event {
			rctx, cancel := context.WithTimeout(context.Background(), replayTimeout)
			defer cancel()
			var evs []runtime.Event
			for ev, err := range store.Events(rctx, id, from) {
				if err != nil {
					log.Warn("replay from the store", "from", from, "err", err)
					break
				}
				evs = append(evs, ev)
			}
			return evs
		}))
	}
	if o.Synthesizer == nil {
		opts = append(opts, livekit.WithoutSpeech()) // nothing to say aloud: a track without audio costs nothing
	}
	opts = append(opts, o.RoomOptions...)
	room, err := livekit.Join(ctx, o.Config, opts...)
	if err != nil {
		return nil, fmt.Errorf("join room: %w", err)
	}
	rb := &RoomBot{Room: room, log: log, name: o.Config.Room}
	botOpts := []livekit.BotOption{livekit.WithBotLogger(log)}
	if o.Recognizer != nil || o.Synthesizer != nil {
		// The same voice path as the microphone's: each line in its persona's voice.
		vopts := append([]voicepath.Option{voicepath.WithLogger(log), voicepath.WithEvents(o.OnVoiceEvent)}, o.VoiceOptions...)
		rec, synth := x.meterSpeech(o.Recognizer, o.Synthesizer)
		botOpts = append(botOpts, livekit.WithVoice(rec, synth, vopts...))
	}
	bot, err := livekit.NewBot(room, x.Controller, botOpts...)
	if err != nil {
		room.Close()
		return nil, err
	}
	rb.Bot, rb.Voice = bot, bot.Voice()
	x.Subscribe(bot)
	return rb, nil
}

// WaitCandidate blocks until a candidate is in the room and returns its identity.
func (b *RoomBot) WaitCandidate(ctx context.Context) (string, error) {
	return b.Room.WaitCandidate(ctx)
}

// Close stops the bot and its voice and leaves the room, after sending what is still queued.
// Close the exam first, so that its last events reach the room.
func (b *RoomBot) Close() error {
	err := b.Bot.Close()
	if err != nil {
		b.log.Warn("close room voice", "err", err)
	}
	return errors.Join(err, b.Room.Close())
}

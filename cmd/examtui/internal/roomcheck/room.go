package roomcheck

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// BotIdentity is the exam bot's identity in a test room.
const BotIdentity = "examtui-bot"

// room is one script's room: the bot, the candidate and the examiner participants.
type room struct {
	lk       *livekit.Room
	bot      *livekit.Bot
	cand     *livekit.Client
	exr      *livekit.Client
	listener *listener
	mic      *micPump
	heard    *stepRecognizer // spoken runs: the bot's recogniser, told which step is spoken
	synth    audio.Synthesizer
	voice    string // the candidate's espeak-ng voice: the exam language's (candidateVoice)
	closers  []func()
	stop     context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	seq     int64
	seqCh   chan struct{}
	leakCnt int
	spoken  []spokenAt // spoken events the candidate received
	downAt  time.Time  // when the candidate's connection last left "connected" (zero: up)
	closed  bool       // the candidate's connection gave up
}

type spokenAt struct {
	at   time.Time
	text string
}

func randomRoomName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "examtui-test-" + hex.EncodeToString(b)
}

// startRoom joins the bot, the candidate and an examiner to a fresh room and waits until each
// sees the others and the candidate hears the bot's track. Joining is bounded by the reply
// timeout: a dead server is a transport error, not a hang.
func (o Options) startRoom(ctx context.Context, s *headless.Script, tt *spec.ResolvedTurnTaking, ctrl *runtime.Controller, fan *runtime.Fanout, log *slog.Logger) (rt *room, err error) {
	rt = &room{seqCh: make(chan struct{})}
	defer func() {
		if err != nil {
			rt.close()
		}
	}()
	name := randomRoomName()
	jctx, cancel := context.WithTimeout(ctx, o.ReplyTimeout)
	defer cancel()
	transport := func(who string, err error) error {
		return fmt.Errorf("%w: %s: %w (phase=transport)", ErrTransport, who, err)
	}
	lk, err := livekit.Join(jctx, livekit.Config{URL: o.URL, APIKey: o.APIKey, APISecret: o.APISecret, Room: name, Identity: BotIdentity},
		livekit.WithLogger(log), livekit.WithSpeechSampleRate(app.BotSpeechRate))
	if err != nil {
		return rt, transport("bot", err)
	}
	rt.lk = lk
	rt.closers = append(rt.closers, func() { lk.Close() })
	synth, err := audio.NewEspeak(audio.WithEspeakLogger(log))
	if err != nil {
		return rt, fmt.Errorf("examiner voice: %w", err)
	}
	rt.synth, rt.voice = synth, candidateVoice(ctrl.Language())
	var recog audio.Recognizer
	if o.Spoken {
		// A fixed grammar of the script's own lines: pocketsphinx is exact on a small grammar
		// and useless in free dictation.
		sph, err := audio.NewSphinx(grammar(s), audio.WithSphinxLogger(log))
		if err != nil {
			return rt, fmt.Errorf("recogniser: %w", err)
		}
		rt.closers = append(rt.closers, func() { sph.Close() })
		rt.heard = &stepRecognizer{Recognizer: sph}
		recog = rt.heard
	}
	bot, err := livekit.NewBot(lk, ctrl, livekit.WithBotLogger(log),
		livekit.WithVoice(recog, synth, append([]voicepath.Option{voicepath.WithLogger(log)}, o.voiceOptions(tt)...)...))
	if err != nil {
		return rt, err
	}
	rt.bot = bot
	fan.Subscribe(bot)

	candTok, err := livekit.NewToken(o.APIKey, o.APISecret, name, "candidate", livekit.RoleCandidate)
	if err != nil {
		return rt, err
	}
	exTok, err := livekit.NewToken(o.APIKey, o.APISecret, name, "examiner", livekit.RoleExaminer)
	if err != nil {
		return rt, err
	}
	copts := []livekit.ClientOption{livekit.WithClientLogger(log), livekit.WithClientStateChanges(rt.candidateState)}
	if o.Spoken {
		copts = append(copts, livekit.WithMicrophone(audio.SampleRate))
	}
	if rt.cand, err = livekit.Dial(jctx, o.URL, candTok, copts...); err != nil {
		return rt, transport("candidate", err)
	}
	if rt.exr, err = livekit.Dial(jctx, o.URL, exTok, livekit.WithClientLogger(log)); err != nil {
		return rt, transport("examiner", err)
	}
	for _, c := range []*livekit.Client{rt.cand, rt.exr} {
		if err := c.WaitBot(jctx); err != nil {
			return rt, transport("waiting for the bot", err)
		}
	}
	bothIn := func(ps []livekit.Participant) bool {
		seen := map[string]bool{}
		for _, p := range ps {
			seen[p.Identity] = true
		}
		return seen["candidate"] && seen["examiner"]
	}
	if err := lk.WaitParticipants(jctx, bothIn); err != nil {
		return rt, transport("the bot never saw both participants", err)
	}

	lctx, stop := context.WithCancel(context.Background())
	rt.stop = stop
	rt.listener = newListener()
	rt.listener.botEnds = true // examtui's bot says when each line ends
	rt.wg.Add(4)
	go func() { defer rt.wg.Done(); rt.listener.run(lctx, rt.cand.Audio()) }()
	go func() { defer rt.wg.Done(); receive(lctx, rt.cand.LineEnds(), rt.listener.lineEnd) }()
	go func() { defer rt.wg.Done(); rt.watchCandidate(lctx) }()
	go func() { defer rt.wg.Done(); rt.watchExaminer(lctx) }()
	if o.Spoken {
		rt.mic = newMicPump(rt.cand.Voice())
		rt.wg.Add(1)
		go func() { defer rt.wg.Done(); rt.mic.run(lctx) }()
	}
	if err := rt.listener.waitTrack(jctx); err != nil {
		return rt, transport("the candidate never received the bot's audio track", err)
	}
	return rt, nil
}

// voiceOptions are the bot's voice options: the caller's, or the adaptive end of turn that
// `examtui run --room` uses, tuned by the exam's policies.turnTaking.
func (o Options) voiceOptions(tt *spec.ResolvedTurnTaking) []voicepath.Option {
	opts := o.VoiceOptions
	if opts == nil {
		opts = []voicepath.Option{voicepath.WithRoomEndOfTurn(audio.EndpointConfig{}, tt, false, false)}
	}
	if o.Timings != nil {
		opts = append(slices.Clip(opts), voicepath.WithTimings(o.Timings))
	}
	return opts
}

// grammar is every line the candidate may say, its first words up to each punctuation mark
// inside it (where espeak-ng pauses: the bot reads those pauses' words), and each part of a
// line with pauses on its own: a turn the bot ends inside a pause (a cut-off) is then still
// recognised.
func grammar(s *headless.Script) []string {
	said := s.Said()
	lines := slices.Clone(said)
	for _, l := range said {
		words := strings.Fields(l)
		for i, w := range words[:max(len(words)-1, 0)] {
			if strings.ContainsAny(w[len(w)-1:], ",;:.!?") {
				lines = append(lines, strings.Join(words[:i+1], " "))
			}
		}
	}
	for _, t := range s.Turns {
		if t.Say == nil {
			continue
		}
		if parts, err := headless.SplitPauses(*t.Say); err == nil && len(parts) > 1 {
			for _, p := range parts {
				lines = append(lines, p.Text)
			}
		}
	}
	return lines
}

// candidateState follows the candidate's connection, to tell a silent examiner from a dead
// transport.
func (rt *room) candidateState(s livekit.ConnState) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch s {
	case livekit.StateConnected:
		rt.downAt = time.Time{}
	case livekit.StateClosed:
		rt.closed = true
		fallthrough
	default:
		if rt.downAt.IsZero() {
			rt.downAt = time.Now()
		}
	}
}

// alive returns a transport error once the candidate's connection has given up, or has been
// down for longer than grace.
func (rt *room) alive(grace time.Duration) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch {
	case rt.closed:
		return fmt.Errorf("%w: the candidate's connection closed (phase=transport)", ErrTransport)
	case !rt.downAt.IsZero() && time.Since(rt.downAt) >= grace:
		return fmt.Errorf("%w: the candidate's connection has been down for %s (phase=transport)", ErrTransport, time.Since(rt.downAt).Round(time.Second))
	}
	return nil
}

// speech synthesises the candidate's line at 16 kHz (espeak-ng): each part of a line with
// pauses, and the silence between them. It returns the audio and where each pause lies in it.
func (rt *room) speech(ctx context.Context, line string) ([]int16, []pauseSpan, error) {
	parts, err := headless.SplitPauses(line)
	if err != nil {
		return nil, nil, err
	}
	var pcm []int16
	var pauses []pauseSpan
	for _, p := range parts {
		c, err := rt.synth.Synthesize(ctx, p.Text, audio.SpeakOptions{Voice: rt.voice})
		if err != nil {
			return nil, nil, err
		}
		c16, err := c.To16k()
		if err != nil {
			return nil, nil, err
		}
		pcm = append(pcm, c16.Samples...)
		if p.Pause > 0 {
			// The pause runs from the part's last voiced sample to the next part's first.
			_, last, _ := voicedBounds(c16.Samples)
			tailSil := time.Duration(len(c16.Samples))*time.Second/audio.SampleRate - last
			start := time.Duration(len(pcm))*time.Second/audio.SampleRate - tailSil
			pcm = append(pcm, make([]int16, int(p.Pause.Seconds()*audio.SampleRate))...)
			pauses = append(pauses, pauseSpan{from: start, to: time.Duration(len(pcm)) * time.Second / audio.SampleRate})
		}
	}
	return pcm, pauses, nil
}

// pauseSpan is a pause inside a line, as offsets into its audio; the next part's own leading
// silence is counted in the pause when the spans are placed on the clock.
type pauseSpan struct{ from, to time.Duration }

// watchCandidate counts events the candidate receives outside its view (the hidden-audience
// rule checked from the candidate's side) and notes the examiner's spoken lines.
func (rt *room) watchCandidate(ctx context.Context) {
	allowed := map[runtime.EventType]bool{runtime.EventExamState: true, runtime.EventNodeEntered: true,
		runtime.EventTimeWarning: true, runtime.EventCommandAcknowledged: true, runtime.EventSpoken: true, runtime.EventExamCompleted: true}
	receive(ctx, rt.cand.Events(), func(ev runtime.Event) {
		at := time.Now()
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if !allowed[ev.Event] {
			rt.leakCnt++
		}
		if ev.Event == runtime.EventSpoken {
			if p, err := ev.Decode(); err == nil {
				if sp, ok := p.(*runtime.SpokenPayload); ok {
					rt.spoken = append(rt.spoken, spokenAt{at: at, text: sp.Text})
					rt.listener.spokenLine(ev.Seq)
				}
			}
		}
	})
}

// spokenBetween returns the first spoken event's time and all their words in [from, to].
func (rt *room) spokenBetween(from, to time.Time) (first time.Time, words string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var texts []string
	for _, s := range rt.spoken {
		if s.at.Before(from) || s.at.After(to) {
			continue
		}
		if first.IsZero() {
			first = s.at
		}
		texts = append(texts, s.text)
	}
	return first, strings.Join(texts, " ")
}

// spokenSince reports whether a spoken event reached the candidate at or after t.
func (rt *room) spokenSince(t time.Time) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	n := len(rt.spoken)
	return n > 0 && !rt.spoken[n-1].at.Before(t)
}

// watchExaminer tracks the highest seq the examiner has received, to know when a control or an
// instruction has taken effect.
func (rt *room) watchExaminer(ctx context.Context) {
	receive(ctx, rt.exr.Events(), func(ev runtime.Event) {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if ev.Seq > rt.seq {
			rt.seq = ev.Seq
			close(rt.seqCh)
			rt.seqCh = make(chan struct{})
		}
	})
}

// receive calls f with each value from ch until ctx ends: the loop of the harness's watchers
// (the candidate's and the examiner's events, the bot's audio).
func receive[T any](ctx context.Context, ch <-chan T, f func(T)) {
	for {
		select {
		case <-ctx.Done():
			return
		case v := <-ch:
			f(v)
		}
	}
}

func (rt *room) lastSeq() int64 {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.seq
}

func (rt *room) leaks() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.leakCnt
}

// waitSeqAfter waits until the examiner has received an event after seq.
func (rt *room) waitSeqAfter(ctx context.Context, seq int64, d time.Duration) bool {
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

func (rt *room) close() {
	if rt.stop != nil {
		rt.stop()
	}
	rt.wg.Wait()
	if rt.bot != nil {
		rt.bot.Close()
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

// candidateVoice is the espeak-ng voice the harness's candidate speaks with: the exam's
// language pack's, so a French script is spoken in French.
func candidateVoice(p *lang.Pack) string { return p.Voice }

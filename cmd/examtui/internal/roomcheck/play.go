package roomcheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/transport/livekit"
)

// player runs one script's steps in a room.
type player struct {
	o        Options
	s        *headless.Script
	ctrl     *runtime.Controller
	rt       *room
	recorder *audio.SessionRecorder
	res      *headless.Result
	report   *headless.VoiceReport
	started  time.Time
	events   *eventLog
	clipDir  string // where each reply's clips are written (replies/ in the recording folder)
	// interruption is how interrupt steps interrupt (headless.InterruptNative or
	// InterruptTiming).
	interruption string
}

// play runs the opening and the steps; an error is a run that could not go on (the context
// ended, or a recording failed). A reply that never came ends the steps, as the adapter does:
// without it the conversation is out of step.
// interruptInto is how much of the examiner's line an interrupt step lets it say first.
const interruptInto = 400 * time.Millisecond

func (p *player) play(ctx context.Context) error {
	p.started = time.Now()
	p.events.emit(p.started, VoiceEvent{Event: EventRunStarted, Kind: p.report.Mode})
	defer func() { p.events.emit(time.Now(), VoiceEvent{Event: EventRunEnded}) }()
	if err := p.ctrl.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	op, err := p.measure(ctx, measureReq{kind: "opening", stepStart: p.started, since: p.started})
	if err != nil {
		return err
	}
	p.report.Opening = &op
	if op.Error != "" {
		p.res.TurnsSkipped = len(p.s.Turns)
		return nil
	}
	for i, t := range p.s.Turns {
		if p.ctrl.Snapshot().State.Terminal() {
			p.res.TurnsSkipped = len(p.s.Turns) - i
			break
		}
		step := i + 1
		// Audio heard before this step belongs to replies already clipped.
		p.rt.listener.forget(time.Now().Add(-runGap))
		nextInterrupt := i+1 < len(p.s.Turns) && p.s.Turns[i+1].Interrupt != nil
		var rp *headless.ReplyTiming
		var err error
		switch {
		case t.Say != nil:
			rp, err = p.say(ctx, step, t, nextInterrupt)
		case t.Interrupt != nil:
			rp, err = p.interrupt(ctx, step, t)
		case t.Wait != nil, t.Silence != nil:
			d := seconds(t.Wait, t.Silence)
			if err := runtime.Sleep(ctx, d); err != nil {
				return err
			}
			p.res.TurnsRun++
			err = p.settle(ctx, time.Now().Add(-d))
		case t.Control != nil, t.Admin != nil:
			err = p.command(ctx, step, t)
		}
		if err != nil {
			return err
		}
		if rp == nil {
			continue
		}
		p.report.Replies = append(p.report.Replies, *rp)
		if rp.Error != "" {
			p.res.TurnsSkipped = len(p.s.Turns) - step
			return nil
		}
	}
	return nil
}

// say plays one say step: typed, or spoken with its pauses, then measures the reply.
func (p *player) say(ctx context.Context, step int, t headless.TurnStep, nextInterrupt bool) (*headless.ReplyTiming, error) {
	stepStart := time.Now()
	req := measureReq{kind: "say", step: step, said: *t.Say, stepStart: stepStart, onlyFirst: nextInterrupt}
	p.res.TurnsRun++
	p.events.emit(stepStart, VoiceEvent{Event: EventTurnStarted, Step: step, Kind: req.kind, Text: *t.Say})
	if p.rt.mic == nil {
		if rp, err := p.sendTyped(ctx, &req, t); rp != nil || err != nil {
			return rp, err
		}
	} else {
		p.rt.heard.speaking(t)
		start, pauses, err := p.speak(ctx, *t.Say, &req)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		rp, err := p.measure(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, c := range p.cutOffs(start, pauses, req.since) {
			c.CutOff.Expected = t.CutOff
			rp.CutOffs = append(rp.CutOffs, c.CutOff)
			p.events.emit(c.at, VoiceEvent{Event: EventCutOff, Step: step, Kind: req.kind})
		}
		return &rp, nil
	}
	rp, err := p.measure(ctx, req)
	return &rp, err
}

// cutOffs finds where the examiner took the turn inside the pauses of a line said from start
// and ending at end: its voice heard beginning inside a pause, or, when nothing of it was heard
// there, one of its lines (a spoken event) reaching the candidate after the pause began and
// before the line ended. The second is the bot's own word that it replied, which a starved
// track may send too late to be heard in the pause (or not at all, when the rest of the
// candidate's line cuts it at once): the candidate's turn was still ended in the pause.
func (p *player) cutOffs(start time.Time, pauses []pauseSpan, end time.Time) []cutOffAt {
	var out []cutOffAt
	for i, ps := range pauses {
		from, to := start.Add(ps.from), start.Add(ps.to)
		cut := func(at time.Time) {
			out = append(out, cutOffAt{headless.CutOff{PauseAtMs: p.at(from), PauseMs: ms(ps.to - ps.from), ExaminerAtMs: p.at(at)}, at})
		}
		heard := false
		for _, r := range p.rt.listener.runs(from, to) {
			if r.start.After(from) && r.start.Before(to) {
				cut(r.start)
				heard = true
			}
		}
		if heard {
			continue
		}
		until := end
		if i+1 < len(pauses) {
			until = start.Add(pauses[i+1].from)
		}
		if at, _ := p.rt.spokenBetween(from, until); !at.IsZero() {
			cut(at)
		}
	}
	return out
}

// cutOffAt is a cut-off and when the examiner took the turn.
type cutOffAt struct {
	headless.CutOff
	at time.Time
}

// sendTyped sends a step's line as typed text and fills the request's reference time and the
// candidate's side; a line that could not be sent is returned as the failed reply.
func (p *player) sendTyped(ctx context.Context, req *measureReq, t headless.TurnStep) (*headless.ReplyTiming, error) {
	conf := 1.0
	if t.Confidence != nil {
		conf = *t.Confidence
	}
	start := time.Now()
	line := headless.SpokenText(req.said)
	sctx, cancel := context.WithTimeout(ctx, p.o.ReplyTimeout)
	err := p.rt.cand.SendCandidateText(sctx, line, conf)
	cancel()
	if errors.Is(err, livekit.ErrNoReceipt) && ctx.Err() == nil {
		// Sent but not confirmed (the bot may have taken it just before the connection went):
		// whether it arrived is for the reply wait to find out, and its timeout to report.
		p.o.logger().Warn("the candidate's line was not confirmed by the bot", "step", req.step, "err", err)
		err = nil
	}
	req.since = time.Now()
	req.candidate = append(req.candidate, p.event(start, "candidate", "start"), p.event(req.since, "candidate", "stop"))
	req.clip = &headless.Clip{StartMs: p.at(start), EndMs: p.at(req.since), Transcript: line}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return p.failed(*req, fmt.Errorf("%w: sending the candidate's line: %w (phase=transport)", ErrTransport, err)), nil
	}
	p.events.emit(req.since, VoiceEvent{Event: EventTurnEnded, Step: req.step, Kind: req.kind})
	return nil, nil
}

// speak synthesises a line with its pauses and says it into the candidate's microphone.
func (p *player) speak(ctx context.Context, line string, req *measureReq) (time.Time, []pauseSpan, error) {
	pcm, pauses, err := p.rt.speech(ctx, line)
	if err != nil {
		return time.Time{}, nil, err
	}
	start, _, err := p.speakPCM(ctx, pcm, pauses, req)
	if err != nil {
		return time.Time{}, nil, err
	}
	return start, pauses, nil
}

// interrupt cuts the examiner short and says a line: natively (the transport's stop message,
// then the line, typed or spoken) or by timing (the line spoken over the examiner, which the
// bot's voice activity detection must notice). It waits for the examiner to be speaking,
// interrupts well into its line, measures how soon the examiner fell silent, then measures
// the reply to the line.
func (p *player) interrupt(ctx context.Context, step int, t headless.TurnStep) (*headless.ReplyTiming, error) {
	p.res.TurnsRun++
	native := p.interruption == headless.InterruptNative
	if !native && p.rt.mic == nil {
		p.res.StepErrors = append(p.res.StepErrors, fmt.Sprintf("turn %d (interrupt): %s", step, noTypedTiming))
		return nil, nil
	}
	stepStart := time.Now()
	req := measureReq{kind: "interrupt", step: step, said: *t.Interrupt, stepStart: stepStart}
	p.events.emit(stepStart, VoiceEvent{Event: EventTurnStarted, Step: step, Kind: req.kind, Text: *t.Interrupt})
	deadline := stepStart.Add(p.o.ReplyTimeout)
	// Well into the examiner's line: 400 ms of its voice heard since the step began (or a
	// line already under way), counted in audio received, not on the clock.
	since := stepStart.Add(-runGap)
	if into, err := p.rt.listener.intoLine(ctx, since, deadline, interruptInto); err != nil {
		return nil, err
	} else if !into {
		return p.failed(req, fmt.Errorf("%w: the examiner never spoke to be interrupted within %s (phase=first-chunk)", ErrFirstChunkTimeout, p.o.ReplyTimeout)), nil
	}
	limit := BargeInLimit
	if !native {
		limit = SpokenBargeInLimit
	}
	b := &headless.BargeIn{LimitMs: ms(limit), Stopped: true, Method: p.interruption}
	if native {
		if rp, err := p.stop(ctx, &req, b); rp != nil || err != nil {
			return rp, err
		}
		if p.rt.mic == nil {
			if rp, err := p.sendTyped(ctx, &req, t); rp != nil || err != nil {
				return rp, err
			}
		} else if _, _, err := p.speakLine(ctx, t, &req); err != nil {
			return nil, err
		}
	} else {
		pcm, start, err := p.speakLine(ctx, t, &req)
		if err != nil {
			return nil, err
		}
		first, _, _ := voicedBounds(pcm)
		onset := start.Add(first)
		silentAt := onset
		for _, r := range p.rt.listener.runs(onset, onset) {
			silentAt = r.end
			b.StoppedAfterMs = ms(r.end.Sub(onset))
			b.Stopped = r.end.Sub(onset) <= limit
		}
		stopped := b.Stopped
		p.events.emit(silentAt, VoiceEvent{Event: EventBargeIn, Step: step, Kind: req.kind, LatencyMs: b.StoppedAfterMs, Stopped: &stopped})
	}
	rp, err := p.measure(ctx, req)
	if err != nil {
		return nil, err
	}
	rp.BargeIn = b
	return &rp, nil
}

// noTypedTiming is why a typed run cannot interrupt by timing: it has no voice to speak over
// the examiner with.
const noTypedTiming = "a timing-based barge-in needs a spoken candidate (--audio); a typed run interrupts only with the transport's native interrupt (--interrupt native)"

// stopWait bounds the wait for the examiner to fall silent after a stop message; stopQuiet is
// the silence that counts as stopped: longer than the gap between two of its sentences, so an
// examiner that ignores the stop is not taken as stopped at the end of a sentence.
const (
	stopWait  = 10 * time.Second
	stopQuiet = time.Second
)

// stop sends the native interrupt and waits for the examiner to fall silent, measuring how long
// it went on; a stop that could not be sent is returned as the failed reply.
func (p *player) stop(ctx context.Context, req *measureReq, b *headless.BargeIn) (*headless.ReplyTiming, error) {
	stopAt := time.Now()
	sctx, cancel := context.WithTimeout(ctx, p.o.ReplyTimeout)
	err := p.rt.cand.SendCandidateStop(sctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return p.failed(*req, fmt.Errorf("%w: sending the stop message: %w (phase=transport)", ErrTransport, err)), nil
	}
	p.events.emit(stopAt, VoiceEvent{Event: EventInterruptSent, Step: req.step, Kind: req.kind})
	last, err := p.rt.listener.silentAfter(ctx, stopAt, stopAt.Add(stopWait), stopQuiet)
	if err != nil {
		return nil, err
	}
	silentAt := stopAt // no examiner audio after the stop: it had fallen silent already
	if !last.IsZero() {
		silentAt = last
		b.StoppedAfterMs = ms(last.Sub(stopAt))
		b.Stopped = last.Sub(stopAt) <= BargeInLimit
	}
	stopped := b.Stopped
	p.events.emit(silentAt, VoiceEvent{Event: EventBargeIn, Step: req.step, Kind: req.kind, LatencyMs: b.StoppedAfterMs, Stopped: &stopped})
	return nil, nil
}

// speakLine says a step's line into the candidate's microphone; it returns the audio and when
// its first sample was sent.
func (p *player) speakLine(ctx context.Context, t headless.TurnStep, req *measureReq) ([]int16, time.Time, error) {
	p.rt.heard.speaking(t)
	pcm, _, err := p.rt.speech(ctx, req.said)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("step %d: %w", req.step, err)
	}
	start, _, err := p.speakPCM(ctx, pcm, nil, req)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("step %d: %w", req.step, err)
	}
	return pcm, start, nil
}

// speakPCM plays audio already synthesised into the microphone and records it; it fills the
// request's reference time (the last voiced sample) and the candidate's side of the timeline.
func (p *player) speakPCM(ctx context.Context, pcm []int16, pauses []pauseSpan, req *measureReq) (time.Time, time.Time, error) {
	start, end, err := p.rt.mic.say(ctx, pcm)
	if err != nil {
		return start, end, err
	}
	if err := p.recorder.Write(audio.TrackCandidate, pcm); err != nil {
		return start, end, err
	}
	first, last, ok := voicedBounds(pcm)
	req.since = end
	if ok {
		// Counted back from the line's end, which is when the track really sent it: a lag its
		// pacer built up during the line is not the examiner's.
		req.since = end.Add(-(time.Duration(len(pcm))*time.Second/audio.SampleRate - last))
		req.candidate = append(req.candidate, p.event(start.Add(first), "candidate", "start"))
	}
	for _, ps := range pauses {
		req.candidate = append(req.candidate, p.event(start.Add(ps.from), "candidate", "stop"), p.event(start.Add(ps.to), "candidate", "start"))
	}
	req.candidate = append(req.candidate, p.event(req.since, "candidate", "stop"))
	if ok {
		// The candidate's clip is the line's voiced part, as it was sent.
		n0, n1 := samplesAt(first), samplesAt(last)
		req.clip = &headless.Clip{StartMs: p.at(start.Add(first)), EndMs: p.at(req.since), Transcript: headless.SpokenText(req.said)}
		req.clip.WAV = p.writeClip(*req, "candidate", pcm[n0:min(n1, len(pcm))], audio.SampleRate)
	}
	p.events.emit(req.since, VoiceEvent{Event: EventTurnEnded, Step: req.step, Kind: req.kind})
	return start, end, nil
}

// command sends a control or an instruction as the examiner and waits for it to show.
func (p *player) command(ctx context.Context, step int, t headless.TurnStep) error {
	before := time.Now()
	from := p.rt.lastSeq()
	var err error
	if t.Control != nil {
		var a runtime.ControlAction
		if a, err = runtime.ParseControlAction(*t.Control); err == nil {
			err = p.rt.exr.SendControl(ctx, a)
		}
	} else {
		var m runtime.AdminMode
		if m, err = runtime.ParseInstructionMode(t.Admin.Mode); err == nil {
			err = p.rt.exr.SendAdmin(ctx, m, t.Admin.Text)
		}
	}
	p.res.TurnsRun++
	if err != nil {
		p.res.StepErrors = append(p.res.StepErrors, fmt.Sprintf("turn %d (%s): %v", step, t.Kind(), err))
		return nil
	}
	if !p.rt.waitSeqAfter(ctx, from, stepSettle) {
		p.res.StepErrors = append(p.res.StepErrors, fmt.Sprintf("turn %d (%s): no event within %s", step, t.Kind(), stepSettle))
	}
	return p.settle(ctx, before)
}

// settle hears out any speech that started after since (a control's acknowledgement, a time
// warning), so the next step does not talk over it.
func (p *player) settle(ctx context.Context, since time.Time) error {
	_, err := p.rt.listener.awaitReply(ctx, since, waitOpts{firstTimeout: 1500 * time.Millisecond, tail: p.o.TailSilence, maxReply: p.o.MaxReply,
		ownLine: func() bool { return p.rt.spokenSince(since) }})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	_ = err // nothing was said, or the next reply's wait will report the transport
	return nil
}

// measureReq is one reply to measure.
type measureReq struct {
	kind      string
	step      int
	said      string
	stepStart time.Time // when the candidate's step began
	since     time.Time // the candidate's last voiced sample (or the typed line's sending)
	candidate []headless.SpeakingEvent
	onlyFirst bool
	clip      *headless.Clip // the candidate's part (nil for the opening)
}

// measure waits for the reply and reports it; only a context error is returned.
func (p *player) measure(ctx context.Context, req measureReq) (headless.ReplyTiming, error) {
	r, err := p.rt.listener.awaitReply(ctx, req.since, waitOpts{firstTimeout: p.o.ReplyTimeout, tail: p.o.TailSilence,
		maxReply: p.o.MaxReply, onlyFirst: req.onlyFirst, alive: p.rt.alive, ownLine: func() bool { return p.rt.spokenSince(req.since) },
		onFirst: func(first time.Time) {
			p.events.emit(first, VoiceEvent{Event: EventReplyFirstChunk, Step: req.step, Kind: req.kind, LatencyMs: ms(max(first.Sub(req.since), 0))})
		}})
	if err != nil {
		if ctx.Err() != nil {
			return headless.ReplyTiming{}, ctx.Err()
		}
		return *p.failed(req, err), nil
	}
	rp := headless.ReplyTiming{Step: req.step, Said: req.said, Kind: req.kind, LatencyMs: ms(r.latency(req.since)), AudioMs: ms(r.duration()),
		Capped: r.capped, StartedEarly: r.early > 0, EarlyMs: ms(r.early), Candidate: req.clip}
	if req.onlyFirst {
		rp.AudioMs = 0
	}
	if r.capped {
		rp.Timeout = &headless.ReplyTimeout{Phase: headless.PhaseReply, AfterMs: ms(p.o.MaxReply)}
		p.events.emit(r.first.Add(p.o.MaxReply), VoiceEvent{Event: EventTimeout, Step: req.step, Kind: req.kind, Phase: headless.PhaseReply})
	}
	end := time.Now()
	if !req.onlyFirst {
		p.events.emit(r.last.Add(frameLen), VoiceEvent{Event: EventReplyEnded, Step: req.step, Kind: req.kind, AudioMs: rp.AudioMs})
	}
	if first, words := p.rt.spokenBetween(req.stepStart, end); !first.IsZero() {
		rp.Words = words
		if first.After(req.since) {
			rp.TTFBMs = ms(first.Sub(req.since))
		}
	}
	rp.Timeline = append(rp.Timeline, req.candidate...)
	for _, run := range p.rt.listener.runs(req.stepStart, end) {
		rp.Timeline = append(rp.Timeline, p.event(run.start, "examiner", "start"))
		if !req.onlyFirst || run.end.Before(r.first) {
			rp.Timeline = append(rp.Timeline, p.event(run.end, "examiner", "stop"))
		}
	}
	sort.SliceStable(rp.Timeline, func(i, j int) bool { return rp.Timeline[i].AtMs < rp.Timeline[j].AtMs })
	if !req.onlyFirst {
		// The examiner's clip is the reply's audio from its first voiced frame to its last.
		to := r.last.Add(frameLen)
		pcm, rate := p.rt.listener.slice(r.first, to)
		rp.Examiner = &headless.Clip{StartMs: p.at(r.first), EndMs: p.at(to), Transcript: rp.Words}
		rp.Examiner.WAV = p.writeClip(req, "examiner", pcm, rate)
	}
	return rp, nil
}

// failed is a reply that did not come, with the phase of the wait that ran out.
// A first-chunk timeout keeps its phase and shows the transport error under it as its cause.
func (p *player) failed(req measureReq, err error) *headless.ReplyTiming {
	to := &headless.ReplyTimeout{Phase: headless.PhaseFirstChunk, AfterMs: ms(p.o.ReplyTimeout)}
	var fc *FirstChunkTimeoutError
	switch {
	case errors.As(err, &fc):
		to.AfterMs = ms(fc.Timeout)
		if fc.Cause != nil {
			to.Cause = fc.Cause.Error()
		}
	case errors.Is(err, ErrTransport):
		to.Phase, to.AfterMs = headless.PhaseTransport, ms(time.Since(req.since))
	}
	p.events.emit(time.Now(), VoiceEvent{Event: EventTimeout, Step: req.step, Kind: req.kind, Phase: to.Phase, Error: err.Error()})
	return &headless.ReplyTiming{Step: req.step, Said: req.said, Kind: req.kind, Error: err.Error(),
		Timeout: to, Timeline: req.candidate, Candidate: req.clip}
}

func (p *player) at(t time.Time) float64 { return ms(t.Sub(p.started)) }

func (p *player) event(t time.Time, who, what string) headless.SpeakingEvent {
	return headless.SpeakingEvent{AtMs: p.at(t), Who: who, Event: what}
}

func seconds(a, b *float64) time.Duration {
	v := a
	if v == nil {
		v = b
	}
	return time.Duration(*v * float64(time.Second))
}

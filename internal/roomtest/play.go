package roomtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
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
}

// play runs the opening and the steps; an error is a run that could not go on (the context
// ended, or a recording failed). A reply that never came ends the steps, as the adapter does:
// without it the conversation is out of step.
func (p *player) play(ctx context.Context) error {
	p.started = time.Now()
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
	if p.rt.mic == nil {
		conf := 1.0
		if t.Confidence != nil {
			conf = *t.Confidence
		}
		req.since = time.Now()
		req.candidate = []headless.SpeakingEvent{p.event(stepStart, "candidate", "start"), p.event(req.since, "candidate", "stop")}
		sctx, cancel := context.WithTimeout(ctx, p.o.ReplyTimeout)
		err := p.rt.cand.SendCandidateText(sctx, headless.SpokenText(*t.Say), conf)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return p.failed(req, fmt.Errorf("%w: sending the candidate's line: %w (phase=transport)", ErrTransport, err)), nil
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
		// A cut-off: the examiner began speaking inside one of the line's pauses.
		for _, ps := range pauses {
			from, to := start.Add(ps.from), start.Add(ps.to)
			for _, r := range p.rt.listener.runs(from, to) {
				if r.start.After(from) && r.start.Before(to) {
					rp.CutOffs = append(rp.CutOffs, headless.CutOff{PauseAtMs: p.at(from), PauseMs: ms(ps.to - ps.from),
						ExaminerAtMs: p.at(r.start), Expected: t.CutOff})
				}
			}
		}
		return &rp, nil
	}
	rp, err := p.measure(ctx, req)
	return &rp, err
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

// interrupt speaks a line over the examiner (barge-in): it waits for the examiner to be
// speaking, speaks into it, measures how soon the examiner fell silent, then measures the
// reply to the interruption.
func (p *player) interrupt(ctx context.Context, step int, t headless.TurnStep) (*headless.ReplyTiming, error) {
	p.res.TurnsRun++
	if p.rt.mic == nil {
		p.res.StepErrors = append(p.res.StepErrors, fmt.Sprintf("turn %d (interrupt): an interrupt needs a spoken candidate (--audio)", step))
		return nil, nil
	}
	stepStart := time.Now()
	req := measureReq{kind: "interrupt", step: step, said: *t.Interrupt, stepStart: stepStart}
	deadline := stepStart.Add(p.o.ReplyTimeout)
	for !p.rt.listener.speaking(time.Now()) {
		if time.Now().After(deadline) {
			return p.failed(req, fmt.Errorf("%w: the examiner never spoke to be interrupted within %s (phase=first-chunk)", ErrFirstChunkTimeout, p.o.ReplyTimeout)), nil
		}
		if err := runtime.Sleep(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
	}
	if err := runtime.Sleep(ctx, 400*time.Millisecond); err != nil { // well into the examiner's line
		return nil, err
	}
	p.rt.heard.speaking(t)
	pcm, _, err := p.rt.speech(ctx, *t.Interrupt)
	if err != nil {
		return nil, fmt.Errorf("step %d: %w", step, err)
	}
	first, _, _ := voicedBounds(pcm)
	start, _, err := p.speakPCM(ctx, pcm, nil, &req)
	if err != nil {
		return nil, fmt.Errorf("step %d: %w", step, err)
	}
	onset := start.Add(first)
	b := &headless.BargeIn{LimitMs: ms(BargeInLimit), Stopped: true}
	for _, r := range p.rt.listener.runs(onset, onset) {
		b.StoppedAfterMs = ms(r.end.Sub(onset))
		b.Stopped = r.end.Sub(onset) <= BargeInLimit
	}
	rp, err := p.measure(ctx, req)
	if err != nil {
		return nil, err
	}
	rp.BargeIn = b
	return &rp, nil
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
	_, err := p.rt.listener.awaitReply(ctx, since, waitOpts{firstTimeout: 1500 * time.Millisecond, tail: p.o.TailSilence, maxReply: p.o.MaxReply})
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
}

// measure waits for the reply and reports it; only a context error is returned.
func (p *player) measure(ctx context.Context, req measureReq) (headless.ReplyTiming, error) {
	r, err := p.rt.listener.awaitReply(ctx, req.since, waitOpts{firstTimeout: p.o.ReplyTimeout, tail: p.o.TailSilence,
		maxReply: p.o.MaxReply, onlyFirst: req.onlyFirst, alive: p.rt.alive})
	if err != nil {
		if ctx.Err() != nil {
			return headless.ReplyTiming{}, ctx.Err()
		}
		return *p.failed(req, err), nil
	}
	rp := headless.ReplyTiming{Step: req.step, Said: req.said, Kind: req.kind, LatencyMs: ms(r.latency(req.since)), AudioMs: ms(r.duration()),
		Capped: r.capped, StartedEarly: r.early > 0, EarlyMs: ms(r.early)}
	if req.onlyFirst {
		rp.AudioMs = 0
	}
	if r.capped {
		rp.Timeout = &headless.ReplyTimeout{Phase: headless.PhaseReply, AfterMs: ms(p.o.MaxReply)}
	}
	end := time.Now()
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
	return rp, nil
}

// failed is a reply that did not come, with the phase of the wait that ran out.
func (p *player) failed(req measureReq, err error) *headless.ReplyTiming {
	phase, after := headless.PhaseFirstChunk, ms(p.o.ReplyTimeout)
	if errors.Is(err, ErrTransport) {
		phase, after = headless.PhaseTransport, ms(time.Since(req.since))
	}
	return &headless.ReplyTiming{Step: req.step, Said: req.said, Kind: req.kind, Error: err.Error(),
		Timeout: &headless.ReplyTimeout{Phase: phase, AfterMs: after}, Timeline: req.candidate}
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

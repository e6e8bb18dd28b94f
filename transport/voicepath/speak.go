package voicepath

import (
	"context"

	"math"
	"time"

	"github.com/examtui/examtui/audio"
)

// runSpeech says the queued lines one after another until ctx ends.
func (p *Path) runSpeech(ctx context.Context) {
	first := true
	for {
		l, lctx, ok := p.queue.take(ctx)
		if !ok {
			return
		}
		if first && p.cfg.firstLine != nil {
			// The first line (the opening) waits, bounded, until someone can hear it.
			if !p.cfg.firstLine(lctx) && ctx.Err() == nil {
				p.log.Warn("voice: nobody can hear the examiner yet; speaking anyway")
			}
		}
		first = false
		if !p.say(ctx, lctx, l) {
			return
		}
	}
}

// say says one line and deals with how it ended: played, cut (the controller hears what was
// heard, unless it ordered the cut), or failed. It reports false once ctx has ended.
func (p *Path) say(ctx, lctx context.Context, l line) bool {
	if p.stamp != nil {
		p.stamp.reset()
	}
	start := time.Now()
	res, err := p.v.Speak(lctx, l.text, l.opts)
	p.lineEnded() // a pause ends with its line
	p.timed(l, start, res)
	if res.FirstAudioMs > 0 {
		p.ttsFirst.Store(math.Float64bits(res.FirstAudioMs))
	}
	if ctx.Err() != nil {
		p.queue.finish()
		return false
	}
	cause := p.queue.cause()
	if cause != CauseNone || res.Interrupted {
		if cause == CauseNone {
			cause = CauseBargeIn // the pipeline cut it before telling the path
		}
		r := res
		r.Interrupted = true
		p.heard.Store(&r)
		p.log.Info("voice: examiner interrupted", "why", cause.String(), "heard", res.PlayedText,
			"played", res.Played.Round(time.Millisecond), "of", res.Total.Round(time.Millisecond))
		if cause.reported() {
			p.cutOpen.Store(cause == CauseBargeIn)
			if err := p.ctrl.SpeechInterrupted(res.PlayedText); err != nil {
				p.log.Warn("voice: interruption not recorded", "err", err)
			}
		}
		err = nil
	}
	if err != nil {
		p.log.Warn("voice: examiner speech failed", "err", err, "text", l.text)
		if p.cfg.speechFail != nil {
			p.cfg.speechFail(l.text, err)
		}
		idle, through := p.queue.finishThrough()
		p.reportLineEnd(l, res.Played, res.Total, LineFailed, idle, through)
		return true
	}
	p.log.Info("said", "seq", l.seq, "lines", l.n, "firstAudioMs", res.FirstAudioMs, "played", res.Played.Round(time.Millisecond),
		"interrupted", cause != CauseNone)
	if p.cfg.playout != nil {
		if err := p.cfg.playout(ctx); err != nil {
			p.queue.finish()
			return false
		}
	}
	ending := LineWhole
	if cause != CauseNone {
		ending = LineCut
	}
	idle, through := p.queue.finishThrough()
	p.reportLineEnd(l, res.Played, res.Total, ending, idle, through)
	if idle {
		p.ctrl.SpeechDone()
	}
	return true
}

// timed reports where the time of the turn this line first replies to went (WithTimings).
func (p *Path) timed(l line, start time.Time, res audio.SpeakResult) {
	if l.timing == nil || p.cfg.timings == nil {
		return
	}
	t := *l.timing
	if res.FirstAudioMs > 0 {
		t.FirstFrame = start.Add(time.Duration(res.FirstAudioMs * float64(time.Millisecond)))
	}
	if p.stamp != nil {
		t.FirstPacket = p.stamp.firstPlay()
	}
	p.cfg.timings(t)
}

package voicepath

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// Speculative synthesis: while the candidate pauses, the examiner's reply to the pause's words
// is usually already known (runtime.Controller.Speculate). The path asks the controller what
// that reply would say (SpeculativeLine) and synthesises its first sentence then, so that when
// the turn ends with those words the first audio is ready. Nothing is decided here: the
// controller still decides the turn once, when it is submitted, and emits its spoken events as
// always; the prepared audio is played only for a sentence with the very same words, voice,
// language and speed, and otherwise dropped. A prepared sentence is used at most once.

// lineSpeculator is the optional part of a Controller that tells what a speculation would say
// (*runtime.Controller implements it).
type lineSpeculator interface {
	SpeculativeLine(ctx context.Context) (runtime.SpokenPayload, bool)
}

// PreparedStats counts first sentences synthesised during a pause: Prepared started, Used by
// the line that followed, Discarded (replaced by a newer one, not the line said, or failed).
type PreparedStats struct {
	Prepared, Used, Discarded int
}

// preparedSynth is the path's synthesizer: the transport's, with one sentence that may have
// been synthesised ahead of its line.
type preparedSynth struct {
	audio.Synthesizer
	log *slog.Logger

	mu    sync.Mutex
	slot  *prepared
	stats PreparedStats
}

// prepared is one sentence being synthesised ahead.
type prepared struct {
	text   string
	opts   audio.SpeakOptions
	cancel context.CancelFunc
	done   chan struct{}
	clip   audio.Clip // written before done closes
	err    error
}

// prepare starts synthesising text with opts, replacing the sentence prepared before.
func (ps *preparedSynth) prepare(ctx context.Context, wg *sync.WaitGroup, text string, opts audio.SpeakOptions) {
	pctx, cancel := context.WithCancel(ctx)
	pr := &prepared{text: text, opts: opts, cancel: cancel, done: make(chan struct{})}
	ps.mu.Lock()
	if old := ps.slot; old != nil {
		old.cancel()
		ps.stats.Discarded++
	}
	ps.slot = pr
	ps.stats.Prepared++
	ps.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(pr.done)
		// At the voice's own rate, as every other sentence reaches a sink that streams (the
		// bot's track takes any rate); a whole-clip sink's voice resamples it itself.
		pr.clip, pr.err = ps.Synthesizer.Synthesize(pctx, text, opts)
	}()
}

// Synthesize returns the prepared audio for the very sentence it was prepared for (waiting for
// it if it is still being synthesised), else synthesises text now.
func (ps *preparedSynth) Synthesize(ctx context.Context, text string, opts audio.SpeakOptions) (audio.Clip, error) {
	return ps.SynthesizeStream(ctx, text, opts, nil)
}

// SynthesizeStream is Synthesize handing the audio to part (when not nil): the prepared
// sentence whole, any other as the synthesiser brings it (audio.StreamSynthesizer).
func (ps *preparedSynth) SynthesizeStream(ctx context.Context, text string, opts audio.SpeakOptions, part func(audio.Clip)) (audio.Clip, error) {
	ps.mu.Lock()
	pr := ps.slot
	hit := pr != nil && pr.text == text && pr.opts == opts
	if pr != nil {
		ps.slot = nil // used, or the sentence said next was not the one prepared
		if !hit {
			pr.cancel()
			ps.stats.Discarded++
		}
	}
	ps.mu.Unlock()
	if hit {
		asked := time.Now()
		defer func() {
			ps.log.Debug("voice: prepared sentence used", "waited", time.Since(asked).Round(time.Millisecond), "err", pr.err)
		}()
		select {
		case <-pr.done:
		case <-ctx.Done():
			pr.cancel()
			ps.count(false)
			return audio.Clip{}, ctx.Err()
		}
		if pr.err == nil {
			ps.count(true)
			if part != nil && len(pr.clip.Samples) > 0 {
				part(pr.clip)
			}
			return pr.clip, nil
		}
		ps.count(false) // failed ahead: try again now
	}
	return audio.SynthesizeStream(ctx, ps.Synthesizer, text, opts, part)
}

func (ps *preparedSynth) count(used bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if used {
		ps.stats.Used++
	} else {
		ps.stats.Discarded++
	}
}

// Prepared returns the counts of sentences synthesised during a pause (zero without a
// synthesizer or a controller that tells what a speculation would say).
func (p *Path) Prepared() PreparedStats {
	if p.prep == nil {
		return PreparedStats{}
	}
	p.prep.mu.Lock()
	defer p.prep.mu.Unlock()
	return p.prep.stats
}

// prepareReply synthesises, during the pause, the first sentence of what the examiner would say
// to the speculation just started. It runs on its own goroutine: the controller's answer may
// take an LLM call.
func (p *Path) prepareReply() {
	ls, ok := p.ctrl.(lineSpeculator)
	if !ok || p.prep == nil {
		return
	}
	p.prepWG.Add(1)
	go func() {
		defer p.prepWG.Done()
		sp, ok := ls.SpeculativeLine(p.ctx)
		if !ok {
			p.log.Debug("voice: no reply to prepare for the pause")
			return
		}
		// The first sentence as Voice.Speak will cut the line (a short one goes with the next).
		sentences := audio.SplitSentences(sp.Text)
		if len(sentences) == 0 {
			return
		}
		p.log.Debug("voice: preparing the reply's first sentence", "text", sentences[0], "node", sp.NodeID)
		p.prep.prepare(p.ctx, &p.prepWG, sentences[0], p.speakOptionsIn(sp.NodeID, &sp))
	}()
}

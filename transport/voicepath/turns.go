package voicepath

import (
	"strings"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// onTranscript queues a recognised turn for the controller; it runs on the recognition worker,
// which a slow controller must not hold up.
func (p *Path) onTranscript(ft audio.FinalTranscript) {
	select {
	case p.turns <- ft:
	default:
		p.log.Warn("voice: the controller is behind, a recognised turn was dropped", "text", ft.Text)
		p.overheard(ft, runtime.NotAssessedCancelled, "the controller was behind: the recognised turn was dropped")
	}
}

// submit hands a recognised turn to the controller.
func (p *Path) submit(ft audio.FinalTranscript) {
	if !p.v.Listening() {
		// Switched to typing while it was being recognised: no turn, but on the record.
		p.overheard(ft, runtime.NotAssessedCancelled, "recognised after the input switched to typing")
		return
	}
	if !p.takesTurn(ft) {
		return
	}
	turn, ok := p.turnOf(ft)
	if !ok && p.cutOpen.Load() {
		// A cough or a laugh that cut the examiner: the controller hears the empty turn and
		// says the line again from the sentence it was cut in (a false cut).
		turn, ok = p.emptyTurn(ft), true
	}
	if !ok {
		// Noise the VAD took for speech: not a silent turn, which would count against the
		// candidate.
		p.log.Info("voice: nothing recognised in a turn", "startMs", ft.StartMs, "ms", ft.DurationMs)
		return
	}
	p.timer.turn(ft, turn.Text)
	p.cutOpen.Store(false)
	p.refused("spoken turn", turn.Text, p.ctrl.SubmitTurn(p.ctx, turn))
}

// speculate starts the examiner on a pause's words, as the turn they will be if the candidate
// says nothing more (the adaptive end of turn).
func (p *Path) speculate(ft audio.FinalTranscript) {
	if !p.v.Listening() {
		return
	}
	turn, ok := p.turnOf(ft)
	if !ok {
		return
	}
	if err := p.ctrl.Speculate(p.ctx, turn); err != nil {
		p.log.Debug("voice: speculation not started", "err", err)
		return
	}
	p.prepareReply()
}

// turnOf is the controller's turn for a recognised one (the same for a speculation, so the
// controller can tell it is the same turn): its text, STT confidence, when the speech started
// on the wall clock, and the endpointing, STT and TTS latencies. TTS first audio is that of
// the examiner's latest line (the reply to this turn is yet to be synthesised when the
// controller records the turn's latency). ok is false for a turn without words.
func (p *Path) turnOf(ft audio.FinalTranscript) (runtime.Turn, bool) {
	text := strings.TrimSpace(ft.Text)
	if text == "" {
		return runtime.Turn{}, false
	}
	conf := 1.0
	if ft.HasConfidence {
		conf = min(max(ft.Confidence, 0), 1)
	}
	dur := time.Duration(ft.DurationMs) * time.Millisecond
	var started time.Time
	if u := ft.Utterance; !u.DecidedAt.IsZero() {
		started = u.DecidedAt.Add(-time.Duration(u.DecidedMs-u.StartMs) * time.Millisecond)
	} else {
		since := time.Duration(ft.EndpointingMs+ft.STTMs) * time.Millisecond
		started = time.Now().Add(-since - dur)
	}
	return runtime.Turn{Text: text, Confidence: conf, StartedAt: started, Duration: dur, Source: p.cfg.source,
		Latency: runtime.Latency{EndpointingMs: ft.EndpointingMs, STTMs: ft.STTMs, TTSFirstByteMs: p.ttsFirstMs()}}, true
}

// emptyTurn is the controller's turn for a sound with no words after a barge-in.
func (p *Path) emptyTurn(ft audio.FinalTranscript) runtime.Turn {
	ft.Text = "…"
	t, _ := p.turnOf(ft)
	t.Text, t.Confidence = "", 0
	return t
}

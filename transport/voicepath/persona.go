package voicepath

import (
	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// speakOptions is how a spoken line of the current node is said: in the voice of the node's
// persona (else the default voice), in the exam's language, at the line's speed (else the
// persona's, else 1) scaled by WithSpeed and kept within audio's limits.
func (p *Path) speakOptions(sp *runtime.SpokenPayload) audio.SpeakOptions {
	p.nodeMu.Lock()
	id := p.nodeID
	p.nodeMu.Unlock()
	return p.speakOptionsIn(id, sp)
}

// speakOptionsIn is speakOptions for a line of node nodeID.
func (p *Path) speakOptionsIn(nodeID string, sp *runtime.SpokenPayload) audio.SpeakOptions {
	opts := audio.SpeakOptions{Speed: sp.TTSSpeed, Voice: p.defaultVoice()}
	if e := p.exam; e != nil {
		opts.Language = e.Language
		if n := e.Node(nodeID); n != nil {
			if n.Controller.Voice != "" {
				opts.Voice = n.Controller.Voice
			}
			if opts.Speed == 0 {
				opts.Speed = n.Controller.TTSSpeed
			}
		}
	}
	if opts.Speed == 0 {
		opts.Speed = 1
	}
	opts.Speed = min(max(opts.Speed*p.cfg.speed, audio.MinSpeed), audio.MaxSpeed)
	return opts
}
